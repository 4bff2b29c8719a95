/** Content codings an asset is stored in beside its plain bytes, in the order we prefer them. */
export const CODINGS = ['br', 'gzip'] as const;
export type Coding = (typeof CODINGS)[number];

/** The file name suffix of each stored coding. */
export const CODING_SUFFIX: Readonly<Record<Coding, string>> = { br: '.br', gzip: '.gz' };

/**
 * `dist/assets/manifest.json`, written by scripts/build-assets.mjs: which bundle was copied, under
 * which content-hashed name, and which precompressed variants lie next to it.
 */
export interface AssetManifest {
  /** The Scalar bundle: `scalar.<hash>.js`, with `<file>.br` and `<file>.gz` beside it. */
  readonly scalar: {
    readonly file: string;
    /** The first 16 hex digits of the SHA-256 of the plain bytes: the name's hash and the ETag. */
    readonly hash: string;
    /** Where it came from: `@scalar/api-reference@<version>`. */
    readonly source: string;
    /** Its licence, a file in the same folder. */
    readonly licence: string;
    /**
     * `best` (`pnpm build`: what the package ships) or `quick` (built by the sources on first
     * use, when nobody ran the build). Absent in manifests written before it was recorded: best.
     */
    readonly compression?: 'best' | 'quick';
  };
}

export const MANIFEST_FILE = 'manifest.json';
