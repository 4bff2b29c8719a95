import { belowMount, checkPath, type PetStore, renamedOption } from '@petstore/core';
import { originForm, respond, toCoreRequest } from '@petstore/node';
import type {
  FastifyError,
  FastifyPluginCallback,
  FastifyReply,
  FastifyRequest,
  onRequestHookHandler,
} from 'fastify';
import fp from 'fastify-plugin';

export interface PetStorePluginOptions {
  /** What `createPetStore(...)` from `@petstore/core` returned. */
  readonly store: PetStore;
  /** Where clients see the API, for `Location` and `Link`, when a proxy rewrites it. Default: the `prefix`. */
  readonly publicPath?: string | undefined;
  /** @deprecated Renamed `publicPath`; read until the next minor version. */
  readonly basePath?: string | undefined;
  /** Called when a response could not be written; the client then got a plain 500 or a closed socket. */
  readonly onWriteError?: ((error: unknown, request: FastifyRequest) => void) | undefined;
}

/** Hands one request to the core and writes its answer past Fastify's reply. */
type Answer = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

/** Every mount of the plugin on a server, for `petStoreFrameworkErrors`. */
const mounts = new WeakMap<object, Array<{ prefix: string; answer: Answer }>>();

/**
 * Where the prefix ends in a URL Fastify routed to the plugin. Its router may
 * have matched the prefix not letter for letter (`/V1` with `caseSensitive:
 * false`, `//v1` with `ignoreDuplicateSlashes`, `/v%31` decoded): then as many
 * path segments as the prefix has are skipped, and the rest goes to the core as sent.
 */
function prefixEnd(url: string, prefix: string, segments: number): number {
  if (belowMount(url, prefix) !== undefined) return prefix.length;
  let at = 0;
  for (let segment = 0; segment < segments; segment++) {
    while (url.charCodeAt(at) === 47) at++;
    while (at < url.length && url.charCodeAt(at) !== 47 && url.charCodeAt(at) !== 63) at++;
  }
  return at;
}

/**
 * Every request under the prefix is answered from a route-level `onRequest`
 * hook: after the host's own `onRequest` hooks, before Fastify parses,
 * validates, serialises or judges anything, so the core decides every status,
 * header and body (see the README for the hooks that run).
 */
const plugin: FastifyPluginCallback<PetStorePluginOptions> = (fastify, options, done) => {
  const { store, onWriteError } = options;
  const { prefix } = fastify;
  const given = renamedOption(
    'petStorePlugin',
    'basePath',
    'publicPath',
    options.basePath,
    options.publicPath,
  );
  const publicPath = given === undefined ? prefix : checkPath(given, 'publicPath');
  const segments = prefix.split('/').filter((segment) => segment !== '').length;

  const answer: Answer = async (request, reply) => {
    // Fastify's reply pipeline (onSend, serializers, error handler) stays out of it.
    reply.hijack();
    const req = request.raw;
    const coreRequest = () => {
      const url = originForm(req.url ?? '/');
      return toCoreRequest(req, url.slice(prefixEnd(url, prefix, segments)), publicPath);
    };
    await respond(
      store,
      req,
      reply.raw,
      coreRequest,
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

  const onServer = mounts.get(fastify.server) ?? [];
  onServer.push({ prefix, answer });
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
  const url = originForm(request.raw.url ?? '/');
  const mount = mounts
    .get(request.server.server)
    ?.find(({ prefix }) => belowMount(url, prefix) !== undefined);
  if (mount === undefined) void reply.send(error);
  else void mount.answer(request, reply);
}
