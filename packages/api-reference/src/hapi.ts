import type { Plugin, Request, ResponseToolkit, RouteOptions } from '@hapi/hapi';
import { createMount } from '@petstore/core';
import { type ApiReferenceOptions, createApiReference } from './api-reference.js';
import { writeAnswer } from './write.js';

/** Hapi judges nothing here: no auth strategy, no cookie parsing, no server timeout. */
const ROUTE: RouteOptions = {
  auth: false,
  state: { parse: false, failAction: 'ignore' },
  timeout: { server: false },
};

/** Other methods may come with a body: never read, so never refused by hapi's parsers. */
const ANY_METHOD: RouteOptions = {
  ...ROUTE,
  payload: { parse: false, output: 'stream', override: 'application/octet-stream' },
};

/**
 * `await server.register({ plugin: apiReferencePlugin, options: { publicPath: '/v1' } })`: the
 * page at `/docs` (below the `routes.prefix` when registered with one). Its answers are written
 * as they are (hapi adds no compression, cache or Boom headers); any method but GET and HEAD is
 * a 405 with `Allow`.
 */
export const apiReferencePlugin: Plugin<ApiReferenceOptions> = {
  name: '@petstore/api-reference',
  multiple: true,
  register(server, options) {
    const prefix = server.realm.modifiers.route.prefix ?? '';
    const reference = createApiReference({ ...options, path: options.path ?? `${prefix}/docs` });
    const mount = createMount({ mountPath: prefix });
    for (const path of reference.paths) {
      const route = mount.below(path);
      if (route === undefined || route === '') {
        throw new TypeError(`path ${path} is not below the plugin's prefix ${prefix}`);
      }
      const handler = (request: Request, h: ResponseToolkit) => {
        const answer = reference(request.method.toUpperCase(), path, request.raw.req.headers);
        if (answer !== undefined) writeAnswer(request.raw.res, answer);
        return h.abandon;
      };
      // hapi looks at routes of the request's method before `*` routes: HEAD goes to GET.
      server.route([
        { method: 'GET', path: route, options: { ...ROUTE, handler } },
        { method: '*', path: route, options: { ...ANY_METHOD, handler } },
      ]);
    }
  },
};

export type { ApiReferenceOptions } from './api-reference.js';
