import type { AddressInfo } from 'node:net';
import { drainHttpServer, runService } from '@petstore/example-support';
import { createApp } from './app.js';

// Config, logging, storage, banner and shutdown are shared (@petstore/example-support);
// this file only starts Express.
await runService(async ({ config, store, host, stopping, docs }) => {
  const server = createApp({ store, host, stopping, docs }).listen(config.port, config.host);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  return { address: server.address() as AddressInfo, drain: drainHttpServer(server) };
});
