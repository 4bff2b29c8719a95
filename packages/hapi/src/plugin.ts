import type { Plugin, Request, ResponseToolkit, RouteOptions, Server } from '@hapi/hapi';
import type { PetStore } from '@petstore/core';
import { mountAt } from './mount.js';
import { toCoreRequest } from './to-core-request.js';
import { writeResponse } from './write-response.js';

export interface PetStorePluginOptions {
  /** What `createPetStore(...)` from `@petstore/core` returned. */
  readonly store: PetStore;
  /**
   * The base path clients see, for `Location` and `Link`. Default: the
   * `routes.prefix` the plugin is registered under. Give it when a proxy in
   * front rewrites the prefix.
   */
  readonly basePath?: string;
}

/** Hapi must not judge anything under the prefix: the core decides every status and body. */
const common: RouteOptions = {
  auth: false, // the core authenticates
  state: { parse: false, failAction: 'ignore' }, // a malformed Cookie header is not a 400 here
  timeout: { server: false }, // no 503 from a host-wide server timeout
};

const withBody: RouteOptions = {
  ...common,
  payload: {
    parse: false, // no 400/415 from hapi's parsers
    output: 'stream', // the core reads at most maxBodyBytes + 1 bytes, then stops
    override: 'application/octet-stream', // hapi would 400 an unparseable Content-Type itself
    maxBytes: Number.MAX_SAFE_INTEGER, // the core's limit applies, not hapi's 1 MiB (beyond: see onRequest)
  },
};

const ANY_PATH = '/{any*}';

/**
 * What hapi would refuse before our handler runs: a path its router cannot
 * decode (`/v1/%ff`, a 400) and a Content-Length past `maxBytes` (a 413 after
 * draining the whole body).
 */
function refusedByHapi(request: Request): boolean {
  if (Number(request.headers['content-length']) > Number.MAX_SAFE_INTEGER) return true;
  if (!request.path.includes('%')) return false;
  try {
    decodeURIComponent(request.path);
    return false;
  } catch {
    return true;
  }
}

export const petStorePlugin: Plugin<PetStorePluginOptions> = {
  name: '@petstore/hapi',
  multiple: true,
  register(server: Server, options: PetStorePluginOptions) {
    const { store } = options;
    const prefix = server.realm.modifiers.route.prefix ?? '';
    const basePath = options.basePath ?? prefix;
    const mount = mountAt(prefix, server.settings.router?.isCaseSensitive !== false);

    const handler = (request: Request, h: ResponseToolkit) =>
      store.handle(toCoreRequest(request, mount, basePath)).then((response) => {
        try {
          writeResponse(request.raw.req, request.raw.res, response);
        } catch (error) {
          request.log(['petstore', 'error'], error instanceof Error ? error : String(error));
          request.raw.res.destroy();
        }
        return h.abandon; // written above, hapi adds nothing
      });

    // hapi tries routes of the request's own method before `*` routes, whatever
    // their path: naming the methods keeps a host's `GET /{p*}` or its CORS
    // preflight route from answering under our prefix. HEAD goes to GET routes.
    server.route([
      { method: 'GET', path: ANY_PATH, options: { ...common, handler } },
      {
        method: ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
        path: ANY_PATH,
        options: { ...withBody, handler },
      },
      { method: '*', path: ANY_PATH, options: { ...withBody, handler } },
    ]);

    // The one hook before routing: those requests are answered here, by the core.
    server.ext('onRequest', (request, h) =>
      mount.below(request.path) !== undefined && refusedByHapi(request)
        ? handler(request, h)
        : h.continue,
    );
  },
};
