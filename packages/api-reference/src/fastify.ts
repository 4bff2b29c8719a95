import { petStorePlugin } from '@petstore/fastify';
import type { FastifyPluginAsync } from 'fastify';
import { type ApiReferenceOptions, createApiReference } from './api-reference.js';

/**
 * `await app.register(apiReferencePlugin, { publicPath: '/v1' })`: the page at `/docs` (below the
 * `prefix` when registered with one), mounted by `@petstore/fastify` like the pet store: no body
 * parser, serializer, `onSend` hook or error handler changes it.
 */
export const apiReferencePlugin: FastifyPluginAsync<ApiReferenceOptions> = async (
  fastify,
  options,
) => {
  const reference = createApiReference(options);
  await fastify.register(petStorePlugin, { store: reference, prefix: reference.path });
};

export type { ApiReferenceOptions } from './api-reference.js';
