// The types of build-assets.mjs (plain JavaScript, so that plain `node` runs it).
import type { AssetManifest, Coding } from '../src/manifest.js';

export declare const MANIFEST_FILE: string;
export declare const CODING_SUFFIX: Readonly<Record<Coding, string>>;
export declare function contentHash(bytes: Uint8Array | string): string;

export declare const EVAL_PROBE: { readonly find: string; readonly use: string };
export declare function patchBundle(original: Buffer): Buffer;

export interface BuildAssetsOptions {
  /** Scalar's standalone bundle. */
  readonly bundle: string;
  /** Its licence text. */
  readonly licence: string;
  /** `@scalar/api-reference@<version>`. */
  readonly source: string;
  readonly outDir: string;
  /** Default `best` (brotli 11, gzip 9); `quick` (brotli 5, gzip 6) for the sources. */
  readonly compression?: 'best' | 'quick';
}

export declare function readManifest(outDir: string): AssetManifest | undefined;
export declare function buildAssets(
  options: BuildAssetsOptions,
): Promise<{ readonly manifest: AssetManifest; readonly written: boolean }>;

export declare const PACKAGE_DIR: string;
export declare const ASSETS_DIR: string;
export declare function installedScalar(): Omit<BuildAssetsOptions, 'outDir' | 'compression'>;
