import { packageBuild } from '../../tsup.shared.js';

// The CJS build needs `import.meta.url` to find the shipped migrations/ folder.
export default packageBuild(['src/index.ts', 'src/cli.ts'], { shims: true });
