import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type AssetManifest, CODING_SUFFIX, type Coding, MANIFEST_FILE } from './manifest.js';

/** Scalar's bundle as the build step left it: the plain bytes and each precompressed variant. */
export interface ScalarBundle {
  /** `scalar.<hash>.js`. */
  readonly file: string;
  readonly hash: string;
  readonly plain: Buffer;
  readonly coded: Readonly<Record<Coding, Buffer>>;
}

// The sources (src/, in the workspace) and the build (dist/) both sit one folder below the
// package's root, so one relative URL finds the assets from either.
const ASSETS_DIR = fileURLToPath(new URL('../dist/assets/', import.meta.url));

/**
 * Running from the TypeScript sources: the workspace's `@petstore/source` condition (`pnpm start`,
 * the tests). There nobody need have built the package: the assets are built on first use. The
 * built package (dist/) only reads them.
 */
const FROM_SOURCES = import.meta.url.endsWith('/src/bundle.ts');

const loaded = new Map<string, ScalarBundle>();

function read(dir: string): { readonly bundle: ScalarBundle; readonly source: string } {
  let manifest: AssetManifest;
  try {
    manifest = JSON.parse(readFileSync(join(dir, MANIFEST_FILE), 'utf8')) as AssetManifest;
  } catch (error) {
    throw new Error(
      `@petstore/api-reference: no built assets in ${dir} (in the workspace: pnpm --filter @petstore/api-reference build)`,
      { cause: error },
    );
  }
  const { file, hash, source } = manifest.scalar;
  const at = (suffix: string) => readFileSync(join(dir, file + suffix));
  return {
    bundle: {
      file,
      hash,
      plain: at(''),
      coded: { br: at(CODING_SUFFIX.br), gzip: at(CODING_SUFFIX.gzip) },
    },
    source,
  };
}

/** `@scalar/api-reference@<version>` as installed (a devDependency: the workspace has it). */
function installedScalar(): string {
  const bundle = createRequire(import.meta.url).resolve(
    '@scalar/api-reference/browser/standalone.js',
  );
  const root = join(dirname(bundle), '..', '..');
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    version: string;
  };
  return `@scalar/api-reference@${version}`;
}

/**
 * From the sources: the assets of the installed Scalar, as `pnpm build` left them, else built now
 * by scripts/build-assets.mjs with quick compression (a quarter of a second, once: later
 * processes find them) into the same folder, which `pnpm build` recompresses at its best.
 */
function readOrBuild(dir: string): ScalarBundle {
  const wanted = installedScalar();
  try {
    const found = read(dir);
    if (found.source === wanted) return found.bundle;
  } catch {
    // None yet, or a file missing: build.
  }
  const script = fileURLToPath(new URL('../scripts/build-assets.mjs', import.meta.url));
  // Plain node, without the options (a TypeScript loader) this process may have been given.
  const { NODE_OPTIONS: _, ...env } = process.env;
  const built = spawnSync(process.execPath, [script, '--quick'], {
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 120_000,
  });
  if (built.status !== 0) {
    throw new Error(
      `@petstore/api-reference: building the assets failed (node ${script} --quick: ${built.error?.message ?? `exit ${built.status ?? built.signal}`}):\n${built.stderr}`,
    );
  }
  return read(dir).bundle;
}

/** Read from disk once per process (about 5 MB in all), then shared by every reference page. */
export function scalarBundle(dir: string = ASSETS_DIR): ScalarBundle {
  let bundle = loaded.get(dir);
  if (bundle === undefined) {
    bundle = FROM_SOURCES && dir === ASSETS_DIR ? readOrBuild(dir) : read(dir).bundle;
    loaded.set(dir, bundle);
  }
  return bundle;
}
