import { packageBuild } from '../../tsup.shared.js';

// `dist/assets` (the Scalar bundle, hashed and precompressed) is written by scripts/build-assets.mjs
// after tsup and kept across builds; `shims` gives the CommonJS build `import.meta.url`, by which
// the code finds it.
export default packageBuild(
  [
    'src/index.ts',
    'src/express.ts',
    'src/hapi.ts',
    'src/fastify.ts',
    'src/node.ts',
    'src/fetch.ts',
  ],
  { clean: ['!assets/**'], shims: true },
);
