import type { Plugin } from '@hapi/hapi';
import { petStorePlugin } from '@petstore/hapi';
import { type ApiReferenceOptions, createApiReference } from './api-reference.js';

/**
 * `await server.register({ plugin: apiReferencePlugin, options: { publicPath: '/v1' } })`: the
 * page at `/docs` (below the `routes.prefix` when registered with one), mounted by
 * `@petstore/hapi` like the pet store: hapi judges and adds nothing.
 */
export const apiReferencePlugin: Plugin<ApiReferenceOptions> = {
  name: '@petstore/api-reference',
  multiple: true,
  async register(server, options) {
    const reference = createApiReference(options);
    await server.register(
      { plugin: petStorePlugin, options: { store: reference } },
      { routes: { prefix: reference.path } },
    );
  },
};

export type { ApiReferenceOptions } from './api-reference.js';
