import { createHttpService, MOUNT_PATH, runService } from '@petstore/service';
import { createApp } from './app.js';

// Config, logging, storage, the HTTP server (limits, host routes, parser errors) and shutdown
// are shared (@petstore/service); this file only plugs Express in.
await runService(async (parts) => {
  const http = createHttpService(parts, MOUNT_PATH);
  http.server.on('request', createApp({ store: parts.store }));
  http.guard();
  return { address: await http.listen(), drain: http.drain };
});
