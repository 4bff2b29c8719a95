import Hapi from '@hapi/hapi';
import { httpTarget } from '@petstore/core/testing';
import { petStorePlugin } from '@petstore/hapi';
import { runConformanceOverPostgres } from './support/conformance.js';

runConformanceOverPostgres('hapi', async (store) => {
  const server = Hapi.server({ host: '127.0.0.1', port: 0 });
  await server.register(
    { plugin: petStorePlugin, options: { store } },
    { routes: { prefix: '/v1' } },
  );
  await server.start();
  return httpTarget(server.info.uri, () => server.stop({ timeout: 0 }));
});
