import { fileURLToPath } from 'node:url';
import { describeDurableStorage } from '@petstore/service/testing';

// DATABASE_URL unset keeps the pets in a SQLite file; SIGKILL loses no acknowledged create.
describeDurableStorage('Hapi', fileURLToPath(new URL('..', import.meta.url)));
