import { fileURLToPath } from 'node:url';
import { describeSingleClientAttacks } from '../../testing/index.js';

// One client's cheap overloads (issue 40): pipelining, held in-flight places, management sockets.
describeSingleClientAttacks({
  name: 'petstore-service (node:http)',
  appDir: fileURLToPath(new URL('../..', import.meta.url)),
});
