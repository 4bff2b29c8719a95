import { defineConfig, type Options } from 'tsup';

/** How every published package is built: ESM + CJS + types for Node 20, from `entry`. */
export const packageBuild = (entry: readonly string[], extra: Options = {}) =>
  defineConfig({
    entry: [...entry],
    format: ['esm', 'cjs'],
    dts: true,
    sourcemap: true,
    clean: true,
    target: 'node20',
    ...extra,
  });
