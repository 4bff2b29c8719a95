import { packageBuild } from '../../tsup.shared.js';

// The library, and the `petstore-sqlite` CLI (bin/petstore-sqlite.js loads dist/cli.js).
// `node:sqlite` exists only under its `node:` name: tsup must keep the prefix (by default it
// strips it, which would ask for an npm package called `sqlite`).
export default packageBuild(['src/index.ts', 'src/cli.ts'], { removeNodeProtocol: false });
