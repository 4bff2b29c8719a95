import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import {
  buildAssets,
  EVAL_PROBE,
  installedScalar,
  patchBundle,
  ASSETS_DIR as SCRIPT_ASSETS_DIR,
  CODING_SUFFIX as SCRIPT_CODING_SUFFIX,
  MANIFEST_FILE as SCRIPT_MANIFEST_FILE,
  contentHash as scriptContentHash,
} from '../scripts/build-assets.mjs';
import { contentHash } from '../src/hash.js';
import { CODING_SUFFIX, MANIFEST_FILE } from '../src/manifest.js';
import { ASSETS_DIR, manifest, plainBundle } from './support/assets.js';

const temporary: string[] = [];
afterAll(async () => {
  for (const dir of temporary) await rm(dir, { recursive: true, force: true });
});

describe('the assets (dist/assets: built by `pnpm build`, else by the sources on first use)', () => {
  const { scalar } = manifest();
  const at = (file: string) => readFileSync(join(ASSETS_DIR, file));

  it('hold the installed Scalar bundle, its one probe answered, under its content hash', () => {
    const installed = installedScalar();
    expect(scalar.source).toBe('@scalar/api-reference@1.46.4');
    expect(plainBundle().equals(patchBundle(readFileSync(installed.bundle)))).toBe(true);
    expect(scalar.hash).toBe(contentHash(plainBundle()));
    expect(scalar.file).toBe(`scalar.${scalar.hash}.js`);
    expect(plainBundle().includes('new Function')).toBe(false);
  });

  it('have brotli and gzip variants that decompress to the plain bytes, and are smaller', () => {
    const plain = plainBundle();
    const br = at(`${scalar.file}.br`);
    const gz = at(`${scalar.file}.gz`);
    expect(brotliDecompressSync(br).equals(plain)).toBe(true);
    expect(gunzipSync(gz).equals(plain)).toBe(true);
    expect(br.byteLength).toBeLessThan(plain.byteLength / 3);
    expect(gz.byteLength).toBeLessThan(plain.byteLength / 3);
  });

  it('were built by the script with the names and hash the sources read them by', () => {
    expect(SCRIPT_ASSETS_DIR).toBe(resolve(ASSETS_DIR));
    expect(SCRIPT_MANIFEST_FILE).toBe(MANIFEST_FILE);
    expect(SCRIPT_CODING_SUFFIX).toEqual(CODING_SUFFIX);
    expect(scriptContentHash(plainBundle())).toBe(contentHash(plainBundle()));
  });

  it("carry Scalar's MIT licence beside the bundle", () => {
    const licence = at(scalar.licence).toString('utf8');
    expect(licence).toMatch(/^MIT License/);
    expect(licence).toContain('Copyright (c) 2023-present Scalar');
  });
});

describe('buildAssets', () => {
  const withProbe = (text: string) => `(()=>{${text}})();x=()=>{${EVAL_PROBE.find}};`;

  async function fixture(bundleText: string) {
    const dir = await mkdtemp(join(tmpdir(), 'api-reference-assets-'));
    temporary.push(dir);
    const bundle = join(dir, 'standalone.js');
    const licence = join(dir, 'LICENSE');
    await writeFile(bundle, bundleText);
    await writeFile(licence, 'MIT License\n');
    return { bundle, licence, source: 'fixture@1.0.0', outDir: join(dir, 'out') };
  }

  it('writes the hashed bundle, its variants, the licence and the manifest, once', async () => {
    const options = await fixture(withProbe('console.log("é")'));
    const first = await buildAssets(options);
    expect(first.written).toBe(true);
    const { file, hash } = first.manifest.scalar;
    const plain = readFileSync(join(options.outDir, file));
    expect(plain.toString('utf8')).toBe(`(()=>{console.log("é")})();x=()=>{${EVAL_PROBE.use}};`);
    expect(hash).toBe(contentHash(plain));
    expect(brotliDecompressSync(readFileSync(join(options.outDir, `${file}.br`)))).toEqual(plain);
    expect(gunzipSync(readFileSync(join(options.outDir, `${file}.gz`)))).toEqual(plain);
    expect(readdirSync(options.outDir).sort()).toEqual(
      [file, `${file}.br`, `${file}.gz`, first.manifest.scalar.licence, 'manifest.json'].sort(),
    );
    // The same bundle again: nothing to do.
    expect((await buildAssets(options)).written).toBe(false);
  });

  it('replaces the files of an earlier bundle', async () => {
    const options = await fixture(withProbe('1'));
    const old = (await buildAssets(options)).manifest.scalar.file;
    await writeFile(options.bundle, withProbe('2'));
    const next = await buildAssets(options);
    expect(next.written).toBe(true);
    expect(next.manifest.scalar.file).not.toBe(old);
    expect(readdirSync(options.outDir).filter((name) => name.startsWith('scalar.'))).toEqual([
      next.manifest.scalar.file,
      `${next.manifest.scalar.file}.br`,
      `${next.manifest.scalar.file}.gz`,
    ]);
  });

  it('recompresses a quick build at its best, and keeps a best build for a quick one', async () => {
    const options = await fixture(withProbe('"quick, then best"'));
    const quick = await buildAssets({ ...options, compression: 'quick' });
    expect([quick.written, quick.manifest.scalar.compression]).toEqual([true, 'quick']);
    expect((await buildAssets({ ...options, compression: 'quick' })).written).toBe(false);
    const best = await buildAssets(options);
    expect([best.written, best.manifest.scalar.compression]).toEqual([true, 'best']);
    expect(best.manifest.scalar.file).toBe(quick.manifest.scalar.file);
    expect((await buildAssets({ ...options, compression: 'quick' })).written).toBe(false);
    expect((await buildAssets(options)).written).toBe(false);
  });

  it('stops when the probe it answers is not there exactly once (a Scalar to look at)', async () => {
    await expect(buildAssets(await fixture('no probe'))).rejects.toThrow(/exactly once/);
    const twice = withProbe(EVAL_PROBE.find);
    await expect(buildAssets(await fixture(twice))).rejects.toThrow(/exactly once/);
  });
});
