import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm', 'cjs'],
  dts: true,
  sourcemap: true,
  clean: true,
  // Browsers as well as Node 20+: plain ES2022, and nothing Node-specific to bundle.
  target: 'es2022',
  platform: 'neutral',
});
