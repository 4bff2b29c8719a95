import { fileURLToPath } from 'node:url';
import { describeSingleClientAttacks } from '@petstore/service/testing';

// One client's cheap overloads (issue 40): pipelining, held in-flight places, management sockets.
describeSingleClientAttacks({
  name: 'Hapi',
  appDir: fileURLToPath(new URL('..', import.meta.url)),
});
