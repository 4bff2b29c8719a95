import { packageBuild } from '../../tsup.shared.js';

// ESM only: the bin (`src/main.ts`, `petstore-service`) awaits at its top level.
export default packageBuild(['src/index.ts', 'src/main.ts'], { format: ['esm'] });
