import { readFileSync } from 'node:fs';
import { join } from 'node:path';
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

const loaded = new Map<string, ScalarBundle>();

function read(dir: string): ScalarBundle {
  let manifest: AssetManifest;
  try {
    manifest = JSON.parse(readFileSync(join(dir, MANIFEST_FILE), 'utf8')) as AssetManifest;
  } catch (error) {
    throw new Error(
      `@petstore/api-reference: no built assets in ${dir} (in the workspace: pnpm --filter @petstore/api-reference build:assets)`,
      { cause: error },
    );
  }
  const { file, hash } = manifest.scalar;
  const at = (suffix: string) => readFileSync(join(dir, file + suffix));
  return {
    file,
    hash,
    plain: at(''),
    coded: { br: at(CODING_SUFFIX.br), gzip: at(CODING_SUFFIX.gzip) },
  };
}

/** Read from disk once per process (about 5 MB in all), then shared by every reference page. */
export function scalarBundle(dir: string = ASSETS_DIR): ScalarBundle {
  let bundle = loaded.get(dir);
  if (bundle === undefined) {
    bundle = read(dir);
    loaded.set(dir, bundle);
  }
  return bundle;
}
