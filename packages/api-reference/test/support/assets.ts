import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { scalarBundle } from '../../src/bundle.js';
import type { AssetManifest } from '../../src/manifest.js';

/** The package's assets, as `pnpm build` left them or as the sources built them on first use. */
export const ASSETS_DIR = fileURLToPath(new URL('../../dist/assets/', import.meta.url));

// What the package reads (and, from the sources, builds when missing) before the tests read it.
scalarBundle();

export const manifest = (): AssetManifest =>
  JSON.parse(readFileSync(join(ASSETS_DIR, 'manifest.json'), 'utf8')) as AssetManifest;

/** The plain bundle as served, read straight from disk. */
export const plainBundle = (): Buffer => readFileSync(join(ASSETS_DIR, manifest().scalar.file));
