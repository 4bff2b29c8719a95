import { notFound } from '@hapi/boom';
import type { Plugin, Request, ResponseToolkit, RouteOptions, Server } from '@hapi/hapi';
import { createMount, type Handler, readTarget } from '@petstore/core';
import { respond } from '@petstore/node';
import { type PluginMount, toCoreRequest } from './to-core-request.js';

export interface PetStorePluginOptions {
  /** What `createPetStore(...)` from `@petstore/core` returned (or any other `Handler`). */
  readonly store: Handler;
  /**
   * Where clients see the API, for `Location` and `Link`. Default: the
   * `routes.prefix` the plugin is registered under. Give it when a proxy in
   * front rewrites the prefix.
   */
  readonly publicPath?: string | undefined;
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
    const plugin: PluginMount = {
      mount: createMount({ mountPath: prefix, publicPath: options.publicPath }),
      // hapi's router folds case unless `router.isCaseSensitive`: claim exactly what it routes to us.
      caseSensitive: server.settings.router?.isCaseSensitive !== false,
    };
    const { mount } = plugin;

    const handler = async (request: Request, h: ResponseToolkit) => {
      const core = toCoreRequest(request, plugin);
      // Another spelling of the prefix that only hapi's router reads as it: hapi's own 404.
      if (core === undefined) return notFound();
      const onWriteError = (error: unknown) =>
        request.log(['petstore', 'error'], error instanceof Error ? error : String(error));
      await respond(store, request.raw.req, request.raw.res, () => core, onWriteError);
      return h.abandon; // written above, hapi adds nothing
    };

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

    // The one hook before routing: what hapi would refuse or route elsewhere, under the prefix.
    server.ext('onRequest', (request, h) => {
      const raw = request.raw.req.url ?? '/';
      const target = readTarget(raw);
      if (mount.below(target) === undefined) return h.continue;
      if (refusedByHapi(request)) return handler(request, h);
      // A spelling a URL parser reads as ours but hapi's router does not (`/v1\\pets`).
      if (target !== raw && mount.below(request.path, plugin.caseSensitive) === undefined) {
        request.setUrl(target);
      }
      return h.continue;
    });
  },
};
