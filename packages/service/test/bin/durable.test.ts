import { fileURLToPath } from 'node:url';
import { describeDurableStorage } from '../../testing/index.js';

// DATABASE_URL unset keeps the pets in a SQLite file; SIGKILL loses no acknowledged create.
describeDurableStorage(
  'petstore-service (node:http)',
  fileURLToPath(new URL('../..', import.meta.url)),
);
