import { fileURLToPath } from 'node:url';
import { describeDurableStorage } from '@petstore/service/testing';

// DATABASE_URL unset keeps the pets in a SQLite file; SIGKILL loses no acknowledged create.
describeDurableStorage('Express', fileURLToPath(new URL('..', import.meta.url)));
