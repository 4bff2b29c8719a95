import { defineConfig, type Options } from 'tsup';

/** How every published package is built: ESM + CJS + types for Node 22, from `entry`. */
export const packageBuild = (entry: readonly string[], extra: Options = {}) =>
  defineConfig({
    entry: [...entry],
    format: ['esm', 'cjs'],
    dts: true,
    sourcemap: true,
    clean: true,
    target: 'node22',
    ...extra,
  });

/**
 * How the example apps are built for `pnpm serve` / `node dist/main.js`: plain ESM for Node 22,
 * dependencies left external (workspace packages resolve to their built `dist` without the
 * source condition).
 */
export const appBuild = (entry: readonly string[]) =>
  defineConfig({
    entry: [...entry],
    format: ['esm'],
    sourcemap: true,
    clean: true,
    target: 'node22',
  });
