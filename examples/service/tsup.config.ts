import { defineConfig } from 'tsup';

// Compiled for `pnpm serve` / `node dist/main.js`: plain ESM for Node 20, dependencies left
// external (workspace packages resolve to their built `dist` without the source condition).
export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm'],
  sourcemap: true,
  clean: true,
  target: 'node20',
});
