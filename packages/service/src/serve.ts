import { petStoreListener } from '@petstore/node';
import { serveListener } from './http-service.js';
import { runService } from './service.js';

// `petstore-service`: the standalone service on node:http, no framework. The pet API at the
// service's mount path through @petstore/node; config, storage, health, metrics, tracing and
// shutdown are the service's own, as for every app.
await runService(serveListener(({ store, mountPath }) => petStoreListener(store, { mountPath })));
