import { packageBuild } from '../../tsup.shared.js';

// Browsers as well as Node 20+: plain ES2022, and nothing Node-specific to bundle.
export default packageBuild(['src/index.ts'], { target: 'es2022', platform: 'neutral' });
