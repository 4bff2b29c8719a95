import { createMount } from '@petstore/core';
import type { FastifyPluginCallback, onRequestHookHandler } from 'fastify';
import { type ApiReferenceOptions, createApiReference } from './api-reference.js';
import { writeAnswer } from './write.js';

/**
 * `await app.register(apiReferencePlugin, { publicPath: '/v1' })`: the page at `/docs` (below the
 * `prefix` when registered with one). Answered from a route-level `onRequest` hook and written
 * past Fastify's reply, so no body parser, serializer, `onSend` hook (compression) or error
 * handler changes it; any method but GET and HEAD is a 405 with `Allow`.
 */
export const apiReferencePlugin: FastifyPluginCallback<ApiReferenceOptions> = (
  fastify,
  options,
  done,
) => {
  const { prefix } = fastify;
  const reference = createApiReference({ ...options, path: options.path ?? `${prefix}/docs` });
  const mount = createMount({ mountPath: prefix });
  for (const path of reference.paths) {
    const route = mount.below(path);
    if (route === undefined || route === '') {
      done(new TypeError(`path ${path} is not below the plugin's prefix ${prefix}`));
      return;
    }
    const onRequest: onRequestHookHandler = (request, reply) => {
      reply.hijack();
      const answer = reference(request.raw.method ?? 'GET', path, request.headers);
      if (answer !== undefined) writeAnswer(reply.raw, answer);
    };
    fastify.route({
      method: fastify.supportedMethods,
      url: route,
      onRequest,
      // Never reached: the hook has answered.
      handler: () => {},
    });
  }
  done();
};

export type { ApiReferenceOptions } from './api-reference.js';
