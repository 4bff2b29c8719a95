import type { AddressInfo } from 'node:net';
import { createHttpService, MOUNT_PATH, runService } from '@petstore/service';
import { createServer } from './server.js';

// Config, logging, storage, the HTTP server (limits, host routes, parser errors) and shutdown
// are shared (@petstore/service); this file only plugs hapi in.
await runService(async (parts) => {
  const http = createHttpService(parts, MOUNT_PATH);
  const { config, store } = parts;
  const server = await createServer({
    store,
    listener: http.server,
    host: config.host,
    port: config.port,
  });
  http.guard();
  await server.start();
  // The shared drain closes the connections: hapi's stop() would only wait for them again.
  return { address: http.server.address() as AddressInfo, drain: http.drain };
});
