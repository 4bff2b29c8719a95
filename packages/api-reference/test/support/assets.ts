import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AssetManifest } from '../../src/manifest.js';

/** The package's built assets, as `prepare` (or `pnpm build`) left them. */
export const ASSETS_DIR = fileURLToPath(new URL('../../dist/assets/', import.meta.url));

export const manifest = (): AssetManifest =>
  JSON.parse(readFileSync(join(ASSETS_DIR, 'manifest.json'), 'utf8')) as AssetManifest;

/** The plain bundle as served, read straight from disk. */
export const plainBundle = (): Buffer => readFileSync(join(ASSETS_DIR, manifest().scalar.file));
