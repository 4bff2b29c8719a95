/**
 * The package's build step after tsup: copies Scalar's standalone bundle (with one probe answered
 * up front, see EVAL_PROBE) into `dist/assets` under a content-hashed name, with its licence and
 * brotli and gzip variants written next to it, so the served package never compresses anything.
 * Skipped when `dist/assets` already holds this bundle. Runs at `pnpm build` and at install in
 * the workspace (`prepare`).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import { contentHash } from '../src/hash.js';
import { type AssetManifest, CODING_SUFFIX, MANIFEST_FILE } from '../src/manifest.js';

export interface BuildAssetsOptions {
  /** Scalar's standalone bundle. */
  readonly bundle: string;
  /** Its licence text. */
  readonly licence: string;
  /** `@scalar/api-reference@<version>`. */
  readonly source: string;
  readonly outDir: string;
}

const LICENCE_FILE = 'scalar-api-reference.LICENSE.txt';

/**
 * The one change made to the bundle. Zod (inside it) probes once whether `new Function` works, to
 * compile its object parsers; under the page's CSP (no 'unsafe-eval') the browser refuses that and
 * reports a violation every time the page loads. The probe's answer is "no" there anyway, so it
 * is given without asking: zod then parses as it does under any CSP, and nothing is reported.
 */
export const EVAL_PROBE = {
  find: 'try{return new Function(""),!0}catch(e){return!1}',
  use: 'return!1',
};

/** The bundle as served: exactly one probe replaced, or the build stops (a new Scalar to look at). */
export function patchBundle(original: Buffer): Buffer {
  const text = original.toString('utf8');
  const at = text.indexOf(EVAL_PROBE.find);
  if (at === -1 || text.indexOf(EVAL_PROBE.find, at + 1) !== -1) {
    throw new Error(
      `expected Scalar's bundle to hold zod's eval probe exactly once: ${EVAL_PROBE.find}`,
    );
  }
  return Buffer.from(text.slice(0, at) + EVAL_PROBE.use + text.slice(at + EVAL_PROBE.find.length));
}

const readManifest = (outDir: string): AssetManifest | undefined => {
  try {
    return JSON.parse(readFileSync(join(outDir, MANIFEST_FILE), 'utf8')) as AssetManifest;
  } catch {
    return undefined;
  }
};

/** Every file a manifest names, present. */
const complete = (outDir: string, { scalar }: AssetManifest): boolean =>
  [scalar.file, ...Object.values(CODING_SUFFIX).map((suffix) => scalar.file + suffix)]
    .concat(scalar.licence)
    .every((file) => existsSync(join(outDir, file)));

/** Brotli at its best for text, gzip at level 9: slow once here, so every answer is cheap. */
const compress = {
  br: (bytes: Buffer) =>
    promisify(brotliCompress)(bytes, {
      params: {
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
        [constants.BROTLI_PARAM_SIZE_HINT]: bytes.byteLength,
      },
    }),
  gzip: (bytes: Buffer) => promisify(gzip)(bytes, { level: constants.Z_BEST_COMPRESSION }),
};

/** Writes through a temporary name, so a reader never sees half a file. */
async function writeWhole(path: string, bytes: Uint8Array | string): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, bytes);
  await rename(temporary, path);
}

/** Builds `outDir` from the bundle; returns its manifest and whether anything was written. */
export async function buildAssets(
  options: BuildAssetsOptions,
): Promise<{ readonly manifest: AssetManifest; readonly written: boolean }> {
  const { bundle, licence, source, outDir } = options;
  const bytes = patchBundle(readFileSync(bundle));
  const hash = contentHash(bytes);
  const current = readManifest(outDir);
  if (
    current?.scalar.hash === hash &&
    current.scalar.source === source &&
    complete(outDir, current)
  ) {
    return { manifest: current, written: false };
  }
  await mkdir(outDir, { recursive: true });
  const file = `scalar.${hash}.js`;
  const [br, gz] = await Promise.all([compress.br(bytes), compress.gzip(bytes)]);
  // Bundles of earlier builds go: the folder holds exactly what the manifest names.
  for (const stale of readdirSync(outDir).filter((name) =>
    /^scalar\.[0-9a-f]{16}\.js/.test(name),
  )) {
    if (!stale.startsWith(file)) await rm(join(outDir, stale), { force: true });
  }
  await writeWhole(join(outDir, file), bytes);
  await writeWhole(join(outDir, file + CODING_SUFFIX.br), br);
  await writeWhole(join(outDir, file + CODING_SUFFIX.gzip), gz);
  await writeWhole(join(outDir, LICENCE_FILE), readFileSync(licence));
  const manifest: AssetManifest = { scalar: { file, hash, source, licence: LICENCE_FILE } };
  // Last: a manifest names only files already written.
  await writeWhole(join(outDir, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
  return { manifest, written: true };
}

const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));

/** The installed `@scalar/api-reference` (a devDependency) and its licence. */
export function installedScalar(): Omit<BuildAssetsOptions, 'outDir'> {
  const require = createRequire(join(PACKAGE_DIR, 'package.json'));
  const bundle = require.resolve('@scalar/api-reference/browser/standalone.js');
  // dist/browser/standalone.js: the package's root is two folders up (it exports no package.json).
  const root = join(dirname(bundle), '..', '..');
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    version: string;
  };
  // Its npm package ships no licence file (the bundle's banner points at the repository's MIT
  // licence): ours is a copy of that file, used unless a later version ships one.
  const shipped = join(root, 'LICENSE');
  return {
    bundle,
    licence: existsSync(shipped)
      ? shipped
      : join(PACKAGE_DIR, 'licenses', 'scalar-api-reference.LICENSE.txt'),
    source: `@scalar/api-reference@${version}`,
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const outDir = join(PACKAGE_DIR, 'dist', 'assets');
  const started = performance.now();
  const { manifest, written } = await buildAssets({ ...installedScalar(), outDir });
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(
    written
      ? `dist/assets: ${manifest.scalar.file} (+ .br, .gz) from ${manifest.scalar.source} in ${seconds} s`
      : `dist/assets: ${manifest.scalar.file} is current`,
  );
}
