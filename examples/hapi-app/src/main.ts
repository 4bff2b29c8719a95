import type { AddressInfo } from 'node:net';
import { runService } from '@petstore/example-support';
import { createServer } from './server.js';

// Config, logging, storage, banner and shutdown are shared (@petstore/example-support);
// this file only starts hapi.
await runService(async ({ config, store, host, docs }) => {
  const server = await createServer({
    store,
    routes: host,
    host: config.host,
    port: config.port,
    docs,
  });
  await server.start();
  return {
    address: server.listener.address() as AddressInfo,
    // hapi stops accepting, lets requests in flight finish, and cuts what still runs at the
    // timeout; 'closing' comes once the listener is closed.
    drain: (timeoutMs, refusing) => {
      server.events.on({ name: 'closing', count: 1 }, refusing);
      return server.stop({ timeout: timeoutMs });
    },
  };
});
