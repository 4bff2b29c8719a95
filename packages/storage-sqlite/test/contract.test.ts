import { runStorageContract } from '@petstore/conformance';
import { createSqliteStorage } from '../src/index.js';
import { tempFolder } from './support/files.js';

// Every case gets a new database file of its own; the folder goes after the file's tests.
const folder = tempFolder('contract');

runStorageContract({
  name: 'sqlite',
  create: () => ({ storage: createSqliteStorage({ path: folder.file() }) }),
});

runStorageContract({
  name: 'sqlite, synchronous FULL',
  create: () => ({ storage: createSqliteStorage({ path: folder.file(), synchronous: 'FULL' }) }),
});
