import { runService, serveListener } from '@petstore/service';
import { createApp } from './app.js';

// Config, logging, storage, the HTTP server (limits, host routes, parser errors) and shutdown
// are shared (@petstore/service); this file only plugs Express in, at the service's mount path.
await runService(serveListener(createApp));
