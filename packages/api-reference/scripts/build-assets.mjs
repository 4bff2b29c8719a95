/**
 * Writes `dist/assets`: Scalar's standalone bundle (with one probe answered up front, see
 * EVAL_PROBE) under a content-hashed name, its licence, and brotli and gzip variants beside it,
 * so the served package never compresses anything. Skipped when `dist/assets` already holds this
 * bundle.
 *
 * Plain JavaScript run by plain `node` (no TypeScript runner, no flag, Node 22.11 and later), so
 * it runs from any folder: `pnpm build` runs it after tsup (best compression, about 20 s, once),
 * and the package's sources run it with `--quick` when they find no assets for the installed
 * Scalar (src/bundle.ts: `pnpm start` and the tests right after `pnpm install`, under a second).
 * Nothing runs at install. Types: build-assets.d.mts.
 *
 *   node scripts/build-assets.mjs            best compression (brotli 11, gzip 9): the package
 *   node scripts/build-assets.mjs --quick    quick compression (brotli 5, gzip 6), for the sources
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';

// The same names and hash as src/manifest.ts and src/hash.ts, which the sources read them by
// (this file cannot import TypeScript; test/build-assets.test.ts checks they agree).
export const MANIFEST_FILE = 'manifest.json';
export const CODING_SUFFIX = Object.freeze({ br: '.br', gzip: '.gz' });
/** The first 16 hex digits of the SHA-256 of `bytes`: names the bundle and is its ETag. */
export const contentHash = (bytes) => createHash('sha256').update(bytes).digest('hex').slice(0, 16);

const LICENCE_FILE = 'scalar-api-reference.LICENSE.txt';

/**
 * The one change made to the bundle. Zod (inside it) probes once whether `new Function` works, to
 * compile its object parsers; under the page's CSP (no 'unsafe-eval') the browser refuses that and
 * reports a violation every time the page loads. The probe's answer is "no" there anyway, so it
 * is given without asking: zod then parses as it does under any CSP, and nothing is reported.
 */
export const EVAL_PROBE = Object.freeze({
  find: 'try{return new Function(""),!0}catch(e){return!1}',
  use: 'return!1',
});

/** The bundle as served: exactly one probe replaced, or the build stops (a new Scalar to look at). */
export function patchBundle(original) {
  const text = original.toString('utf8');
  const at = text.indexOf(EVAL_PROBE.find);
  if (at === -1 || text.indexOf(EVAL_PROBE.find, at + 1) !== -1) {
    throw new Error(
      `expected Scalar's bundle to hold zod's eval probe exactly once: ${EVAL_PROBE.find}`,
    );
  }
  return Buffer.from(text.slice(0, at) + EVAL_PROBE.use + text.slice(at + EVAL_PROBE.find.length));
}

/** The manifest in `outDir`, or undefined. */
export function readManifest(outDir) {
  try {
    return JSON.parse(readFileSync(join(outDir, MANIFEST_FILE), 'utf8'));
  } catch {
    return undefined;
  }
}

/** Every file a manifest names, present. */
const complete = (outDir, { scalar }) =>
  [scalar.file, ...Object.values(CODING_SUFFIX).map((suffix) => scalar.file + suffix)]
    .concat(scalar.licence)
    .every((file) => existsSync(join(outDir, file)));

/**
 * `best`: brotli at its best for text and gzip at level 9, about 20 s for Scalar's 3.5 MB, once
 * per build, so every answer is cheap (brotli 0.79 MB). `quick`: brotli 5 and gzip 6, a quarter
 * of a second (brotli 0.91 MB), for the sources when nobody has built the package.
 */
const SETTINGS = {
  best: { brotli: constants.BROTLI_MAX_QUALITY, gzip: constants.Z_BEST_COMPRESSION },
  quick: { brotli: 5, gzip: 6 },
};

const compress = (bytes, compression) => {
  const settings = SETTINGS[compression];
  return Promise.all([
    promisify(brotliCompress)(bytes, {
      params: {
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        [constants.BROTLI_PARAM_QUALITY]: settings.brotli,
        [constants.BROTLI_PARAM_SIZE_HINT]: bytes.byteLength,
      },
    }),
    promisify(gzip)(bytes, { level: settings.gzip }),
  ]);
};

/** Writes through a temporary name, so a reader (or a build beside this one) never sees half a file. */
async function writeWhole(path, bytes) {
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, bytes);
  await rename(temporary, path);
}

/**
 * Builds `outDir` from the bundle; returns its manifest and whether anything was written. A best
 * build replaces a quick one; a quick build keeps whatever already holds this bundle.
 */
export async function buildAssets(options) {
  const { bundle, licence, source, outDir, compression = 'best' } = options;
  const bytes = patchBundle(readFileSync(bundle));
  const hash = contentHash(bytes);
  const current = readManifest(outDir);
  if (
    current?.scalar.hash === hash &&
    current.scalar.source === source &&
    (compression === 'quick' || (current.scalar.compression ?? 'best') === 'best') &&
    complete(outDir, current)
  ) {
    return { manifest: current, written: false };
  }
  await mkdir(outDir, { recursive: true });
  const file = `scalar.${hash}.js`;
  const [br, gz] = await compress(bytes, compression);
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
  const manifest = { scalar: { file, hash, source, licence: LICENCE_FILE, compression } };
  // Last: a manifest names only files already written.
  await writeWhole(join(outDir, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
  return { manifest, written: true };
}

export const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));
/** Where the package's code looks for its assets (src/bundle.ts, and dist/ once built). */
export const ASSETS_DIR = join(PACKAGE_DIR, 'dist', 'assets');

/** The installed `@scalar/api-reference` (a devDependency) and its licence. */
export function installedScalar() {
  const require = createRequire(join(PACKAGE_DIR, 'package.json'));
  const bundle = require.resolve('@scalar/api-reference/browser/standalone.js');
  // dist/browser/standalone.js: the package's root is two folders up (it exports no package.json).
  const root = join(dirname(bundle), '..', '..');
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
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
  const args = process.argv.slice(2);
  const unknown = args.filter((arg) => arg !== '--quick');
  if (unknown.length > 0) {
    console.error(`usage: node scripts/build-assets.mjs [--quick]; unknown: ${unknown.join(' ')}`);
    process.exit(2);
  }
  const compression = args.includes('--quick') ? 'quick' : 'best';
  const started = performance.now();
  const { manifest, written } = await buildAssets({
    ...installedScalar(),
    outDir: ASSETS_DIR,
    compression,
  });
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(
    written
      ? `dist/assets: ${manifest.scalar.file} (+ .br, .gz, ${compression} compression) from ${manifest.scalar.source} in ${seconds} s`
      : `dist/assets: ${manifest.scalar.file} is current`,
  );
}
