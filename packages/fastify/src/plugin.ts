import { createMount, type Handler, type Mount, readTarget } from '@petstore/core';
import { respond, toCoreRequest } from '@petstore/node';
import type {
  FastifyError,
  FastifyPluginCallback,
  FastifyReply,
  FastifyRequest,
  onRequestHookHandler,
} from 'fastify';
import fp from 'fastify-plugin';

export interface PetStorePluginOptions {
  /** What `createPetStore(...)` from `@petstore/core` returned (or any other `Handler`). */
  readonly store: Handler;
  /** Where clients see the API, for `Location` and `Link`, when a proxy rewrites it. Default: the `prefix`. */
  readonly publicPath?: string | undefined;
  /** Called when a response could not be written; the client then got a plain 500 or a closed socket. */
  readonly onWriteError?: ((error: unknown, request: FastifyRequest) => void) | undefined;
}

/**
 * Fastify's own 404, for another spelling of the prefix Fastify's router sent
 * here (the plugin's 404 handler is the core, so not `reply.callNotFound()`).
 */
function hostNotFound(request: FastifyRequest, reply: FastifyReply): void {
  const message = `Route ${request.method}:${request.url} not found`;
  void reply.code(404).send({ message, error: 'Not Found', statusCode: 404 });
}

/** Hands one request to the core and writes its answer past Fastify's reply. */
type Answer = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

/** Every mount of the plugin on a server, for `petStoreFrameworkErrors`. */
const mounts = new WeakMap<object, Array<{ mount: Mount; answer: Answer }>>();

/**
 * Every request under the prefix is answered from a route-level `onRequest`
 * hook: after the host's own `onRequest` hooks, before Fastify parses,
 * validates, serialises or judges anything, so the core decides every status,
 * header and body (see the README for the hooks that run).
 */
const plugin: FastifyPluginCallback<PetStorePluginOptions> = (fastify, options, done) => {
  const { store, onWriteError } = options;
  const mount = createMount({ mountPath: fastify.prefix, publicPath: options.publicPath });
  const publicPath = mount.publicPathBelow('');

  const answer: Answer = async (request, reply) => {
    const req = request.raw;
    // The target as a URL parser reads it, matched literally: Fastify's router also takes
    // `/%76%31`, `/V1` (caseSensitive: false) or `//v1` (ignoreDuplicateSlashes) to this
    // route, but the API is at its prefix exactly, on every host.
    const below = mount.below(req.url ?? '/');
    if (below === undefined) {
      hostNotFound(request, reply);
      return;
    }
    // Fastify's reply pipeline (onSend, serializers, error handler) stays out of it.
    reply.hijack();
    await respond(
      store,
      req,
      reply.raw,
      () => toCoreRequest(req, below, publicPath),
      onWriteError && ((error) => onWriteError(error, request)),
    );
  };

  // Not async and never calls `done`: the hijacked request needs nothing
  // more from Fastify's hook runner (no promise to await, no preParsing step to skip).
  const onRequest: onRequestHookHandler = (request, reply) => {
    void answer(request, reply);
  };
  const route = {
    method: fastify.supportedMethods,
    onRequest,
    // Never reached: the hook has answered.
    handler: () => {},
  };
  // The prefix itself (`/v1`, and `/v1?x`), then everything below it.
  fastify.route({ ...route, url: '/', prefixTrailingSlash: 'no-slash' });
  fastify.route({ ...route, url: '/*' });
  // Methods Fastify has no routes for (PROPFIND, PURGE...) reach the prefix's 404 handler:
  // the core answers them too (405 with Allow, or its 404).
  fastify.setNotFoundHandler((request, reply) => answer(request, reply));

  const onServer = mounts.get(fastify.server) ?? [];
  onServer.push({ mount, answer });
  mounts.set(fastify.server, onServer);
  done();
};

/**
 * `await app.register(petStorePlugin, { store, prefix: '/v1' })`. Declared
 * with `fastify-plugin`'s metadata (name, supported Fastify versions), and
 * still encapsulated, so the `prefix` applies to its routes.
 */
export const petStorePlugin = fp(plugin, {
  name: '@petstore/fastify',
  fastify: '5.x',
  encapsulate: true,
});

/** The pet store mounted at a target (read as a URL parser reads it) on this server, if any. */
const mountOf = (server: object, target: string) =>
  mounts.get(server)?.find(({ mount }) => mount.below(target) !== undefined);

/**
 * For Fastify's `frameworkErrors` option: Fastify refuses a path it cannot
 * decode (`/v1/%ff`) before any route or hook runs; with this, such a path
 * under a pet store prefix is answered by the core too. Other errors get
 * Fastify's usual answer.
 */
export function petStoreFrameworkErrors(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): void {
  const mounted = mountOf(request.server.server, request.raw.url ?? '/');
  if (mounted === undefined) void reply.send(error);
  else void mounted.answer(request, reply);
}

/**
 * For Fastify's `rewriteUrl` option: a target whose `.`/`..` segments (or
 * other spellings a URL parser reads differently) lead under a pet store
 * prefix (`/x/../v1/pets`) is routed as the URL it means, as every fetch
 * runtime reads it. Other targets are left as they are.
 */
export function petStoreRewriteUrl(
  this: { server: object },
  req: { url?: string | undefined },
): string {
  const raw = req.url ?? '/';
  const target = readTarget(raw);
  return target !== raw && mountOf(this.server, target) !== undefined ? target : raw;
}

/**
 * The server options a Fastify host needs so that every answer under a pet
 * store prefix is the core's: `Fastify({ ...petStoreServerOptions })`.
 */
export const petStoreServerOptions = {
  frameworkErrors: petStoreFrameworkErrors,
  rewriteUrl: petStoreRewriteUrl,
} as const;
