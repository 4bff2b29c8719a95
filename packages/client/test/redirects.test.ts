import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createPetStoreClient, PetStoreError } from '../src/index.js';
import { type StubServer, stubServer } from './support/stub-server.js';

// Redirects, from real sockets on 127.0.0.1 and 127.0.0.2: the client follows none, so the API
// key, a create's body and its Idempotency-Key go only to `baseUrl`, and no other server's
// answer is taken for the service's. Each target answers as the service would, so a client
// that followed would succeed.

const KEY = 'redirect-test-key-0123';
const servers: StubServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});
async function serve(
  handle: (request: IncomingMessage, response: ServerResponse) => void,
  host?: string,
): Promise<StubServer> {
  const server = await stubServer(handle, host);
  servers.push(server);
  return server;
}

const pet = (id: number) => ({ id, name: `pet-${id}`, categoryId: 1, status: 'available' });
/** What the service would answer: a created pet to a POST, a page of one pet to a GET. */
function asTheService(request: IncomingMessage, response: ServerResponse, link?: string): void {
  const created = request.method === 'POST';
  response.writeHead(created ? 201 : 200, {
    'content-type': 'application/json',
    ...(link === undefined ? {} : { link: `<${link}>; rel="next"` }),
  });
  response.end(JSON.stringify(created ? pet(99) : [pet(99)]));
}
function redirect(response: ServerResponse, status: number, location: string): void {
  response.writeHead(status, { location, 'x-request-id': 'redirect-1' });
  response.end('moved');
}
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected a PetStoreError');
    },
    (error: unknown) => {
      expect(error).toBeInstanceOf(PetStoreError);
      return error as PetStoreError;
    },
  );

type Operation = 'listPets' | 'createPet' | 'pets';
function call(baseUrl: string, operation: Operation, fetch?: typeof globalThis.fetch) {
  const client = createPetStoreClient({
    baseUrl,
    apiKey: KEY,
    retries: 3,
    ...(fetch === undefined ? {} : { fetch }),
  });
  if (operation === 'createPet') {
    return client.createPet({ name: 'Rex', categoryId: 1 }, { idempotencyKey: 'order-4711' });
  }
  if (operation === 'listPets') return client.listPets();
  return (async () => {
    for await (const _ of client.pets());
  })();
}

describe('a redirect is refused with redirect_refused, never followed, never retried', () => {
  it.each([
    [302, 'listPets'],
    [302, 'createPet'],
    [303, 'createPet'],
    [307, 'listPets'],
    [307, 'createPet'],
  ] as const)('same origin, another path: %i to %s', async (status, operation) => {
    const home = await serve((request, response) =>
      request.url?.startsWith('/v1/pets')
        ? redirect(response, status, '/elsewhere/pets')
        : asTheService(request, response),
    );
    const error = await failure(call(home.baseUrl, operation));
    expect(error).toMatchObject({ status, code: 'redirect_refused', requestId: 'redirect-1' });
    expect(error.message).toContain(
      `HTTP ${status} redirect to ${new URL(home.baseUrl).origin}/elsewhere/pets`,
    );
    // One request: the redirect's target never got one, and nothing was retried.
    expect(home.requests.map(({ method, url }) => `${method} ${url}`)).toEqual([
      `${operation === 'createPet' ? 'POST' : 'GET'} /v1/pets`,
    ]);
  });

  it.each([307, 308])(
    'a keyed POST answered %i to another origin (127.0.0.2): nothing reaches it',
    async (status) => {
      const elsewhere = await serve(asTheService, '127.0.0.2');
      const home = await serve((_request, response) =>
        redirect(response, status, `${elsewhere.baseUrl}/pets`),
      );
      const error = await failure(call(home.baseUrl, 'createPet'));
      expect(error).toMatchObject({ status, code: 'redirect_refused' });
      expect(error.message).toContain('127.0.0.2');
      // No Authorization, no Idempotency-Key, no body: no request at all.
      expect(elsewhere.requests).toHaveLength(0);
      expect(home.requests).toEqual([
        expect.objectContaining({
          method: 'POST',
          authorization: `Bearer ${KEY}`,
          idempotencyKey: 'order-4711',
        }),
      ]);
    },
  );

  it.each([301, 308])(
    'listPets answered %i to another origin: nothing reaches it',
    async (status) => {
      const elsewhere = await serve(asTheService, '127.0.0.2');
      const home = await serve((request, response) =>
        redirect(response, status, `${elsewhere.baseUrl}${request.url?.slice(3)}`),
      );
      const error = await failure(call(home.baseUrl, 'listPets'));
      expect(error).toMatchObject({ status, code: 'redirect_refused' });
      expect(elsewhere.requests).toHaveLength(0);
      expect(home.requests).toHaveLength(1);
    },
  );

  it.each([301, 308])('pets(): a next page answered %i ends the walk there', async (status) => {
    const elsewhere = await serve(asTheService, '127.0.0.2');
    const home = await serve((request, response) =>
      request.url === '/v1/pets'
        ? asTheService(request, response, '/v1/pets?cursor=2')
        : redirect(response, status, `${elsewhere.baseUrl}/pets?cursor=2`),
    );
    const error = await failure(call(home.baseUrl, 'pets'));
    expect(error).toMatchObject({ status, code: 'redirect_refused' });
    expect(elsewhere.requests).toHaveLength(0);
    expect(home.requests.map((request) => request.url)).toEqual(['/v1/pets', '/v1/pets?cursor=2']);
  });
});

describe('a fetch option', () => {
  it("is always given redirect: 'manual'", async () => {
    const home = await serve((request, response) =>
      asTheService(request, response, request.url === '/v1/pets' ? '/v1/pets?cursor=2' : undefined),
    );
    const given: (RequestRedirect | undefined)[] = [];
    const recording: typeof fetch = (input, init) => {
      given.push(init?.redirect);
      return fetch(input, init);
    };
    await call(home.baseUrl, 'createPet', recording);
    await call(home.baseUrl, 'listPets', recording);
    await call(home.baseUrl, 'pets', recording);
    expect(given).toEqual(['manual', 'manual', 'manual', 'manual']);
  });

  it('that follows a redirect anyway: its answer is refused, not taken for the service’s', async () => {
    const home = await serve((request, response) =>
      request.url?.startsWith('/v1/')
        ? redirect(response, 302, '/moved/pets')
        : asTheService(request, response),
    );
    const following: typeof fetch = (input, init) => fetch(input, { ...init, redirect: 'follow' });
    const error = await failure(call(home.baseUrl, 'listPets', following));
    expect(error).toMatchObject({ status: 200, code: 'redirect_refused' });
    expect(error.message).toContain('followed a redirect to');
    expect(error.message).toContain('/moved/pets');
    expect(home.requests.map((request) => request.url)).toEqual(['/v1/pets', '/moved/pets']);
  });

  it('that returns a browser’s opaque redirect (status 0): redirect_refused, not retried', async () => {
    // Node's fetch gives the 3xx itself; a browser's gives this, which no Node API builds.
    let calls = 0;
    const browserLike: typeof fetch = async () => {
      calls += 1;
      const opaque = new Response(null);
      for (const [name, value] of [
        ['type', 'opaqueredirect'],
        ['status', 0],
        ['ok', false],
      ] as const) {
        Object.defineProperty(opaque, name, { value });
      }
      return opaque;
    };
    const error = await failure(call('http://127.0.0.1:1/v1', 'createPet', browserLike));
    expect(error).toMatchObject({ status: 0, code: 'redirect_refused' });
    expect(error.message).toContain('the browser does not show where to');
    expect(calls).toBe(1);
  });
});
