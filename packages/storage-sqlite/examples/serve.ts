// packages/storage-sqlite/examples/serve.ts
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPetStore } from '@petstore/core';
import { installClientErrorHandler, petStoreListener } from '@petstore/node';
import { createSqliteStorage } from '@petstore/storage-sqlite';

// One file, created and migrated when first opened: WAL, a 5 s busy timeout, synchronous NORMAL.
const storage = createSqliteStorage({ path: process.env.PETS_DB ?? 'pets.db' });
const store = createPetStore({
  storage,
  apiKeys: [process.env.API_KEY ?? 'my-secret-key-4f9a2c71'],
});

const server = createServer(petStoreListener(store, { mountPath: '/v1' }));
installClientErrorHandler(server);
server.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  console.log(`pet store on http://127.0.0.1:${port}/v1, pets in ${storage.path}`);
});

// Stop taking requests, let those in flight finish, then close the file (checkpointing its WAL).
process.once('SIGTERM', () => {
  server.close(() => {
    storage.close().then(() => console.log('closed'));
  });
});
