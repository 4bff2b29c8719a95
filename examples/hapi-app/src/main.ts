import type { AddressInfo } from 'node:net';
import { createHttpService, runService } from '@petstore/service';
import { createServer } from './server.js';

// Config, logging, storage, the HTTP server (limits, host routes, parser errors) and shutdown
// are shared (@petstore/service); this file only plugs hapi in, at the service's mount path.
await runService(async (parts) => {
  const http = createHttpService(parts);
  const { config, store, mountPath } = parts;
  const server = await createServer({
    store,
    mountPath,
    listener: http.server,
    host: config.host,
    port: config.port,
  });
  http.guard();
  await server.start();
  // The shared drain closes the connections: hapi's stop() would only wait for them again.
  return { address: http.server.address() as AddressInfo, drain: http.drain };
});
