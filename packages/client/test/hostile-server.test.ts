import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createPetStoreClient, PetStoreError } from '../src/index.js';
import { type StubServer, stubServer } from './support/stub-server.js';

// A server that turns on its client, from real sockets on 127.0.0.1 and 127.0.0.2: the key must
// not leave `baseUrl`, a walk must end, memory must stay bounded, and wrong answers must be named.

const KEY = 'hostile-test-key-0123';
const servers: StubServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});
async function serve(
  handle: (url: string, response: ServerResponse) => void,
  host?: string,
): Promise<StubServer> {
  const server = await stubServer((request, response) => handle(request.url ?? '', response), host);
  servers.push(server);
  return server;
}

const pet = (id: number) => ({ id, name: `pet-${id}`, categoryId: 1, status: 'available' });
function json(response: ServerResponse, body: unknown, link?: string): void {
  response.writeHead(200, {
    'content-type': 'application/json',
    ...(link === undefined ? {} : { link: `<${link}>; rel="next"` }),
  });
  response.end(JSON.stringify(body));
}
async function walkAll(walk: AsyncIterable<unknown>): Promise<unknown[]> {
  const seen: unknown[] = [];
  for await (const item of walk) seen.push(item);
  return seen;
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

describe('next links that leave baseUrl are never followed, and the key never leaves', () => {
  it('another origin (127.0.0.2): untrusted_link after the first page, no request there', async () => {
    const elsewhere = await serve((_url, response) => json(response, [pet(99)]), '127.0.0.2');
    const home = await serve((_url, response) =>
      json(response, [pet(1)], `${elsewhere.baseUrl}/pets?cursor=x`),
    );
    const client = createPetStoreClient({ baseUrl: home.baseUrl, apiKey: KEY });
    const seen: unknown[] = [];
    const error = await failure(
      (async () => {
        for await (const item of client.pets()) seen.push(item);
      })(),
    );
    expect(error.code).toBe('untrusted_link');
    expect(error.message).toContain('127.0.0.2');
    expect(seen).toEqual([pet(1)]);
    expect(elsewhere.requests).toHaveLength(0);
    expect(home.requests.map((request) => request.authorization)).toEqual([`Bearer ${KEY}`]);
  });

  it('the same origin outside the base path: untrusted_link, nothing sent', async () => {
    const home = await serve((url, response) =>
      url.startsWith('/v1/')
        ? json(response, [pet(1)], '/admin/pets?cursor=x')
        : json(response, []),
    );
    const client = createPetStoreClient({ baseUrl: home.baseUrl, apiKey: KEY });
    expect((await failure(walkAll(client.pets()))).code).toBe('untrusted_link');
    expect(home.requests.map((request) => request.url)).toEqual(['/v1/pets']);
  });

  it('a path that only starts like the base (/v1evil): untrusted_link', async () => {
    const home = await serve((_url, response) => json(response, [pet(1)], '/v1evil/pets'));
    const client = createPetStoreClient({ baseUrl: home.baseUrl, apiKey: KEY });
    expect((await failure(walkAll(client.pets()))).code).toBe('untrusted_link');
    expect(home.requests).toHaveLength(1);
  });

  // Under the base path as written, outside it once a server decodes the path: refused, before
  // any request (only the walk's own path is followed; more in next-links.test.ts).
  it.each([
    '/v1/..%2fadmin',
    '/v1/%2e%2e/admin',
    '/v1/%2E%2E%2Fadmin/pets',
    '/v1/pets/..%5cadmin',
    '/v1/pets/%2e%2e%5c%2e%2e%5cadmin',
    '/v1/pets/..;/admin',
    '/v1/pets/%c0%ae%c0%ae/admin',
  ])('a next link %s: untrusted_link, nothing sent', async (link) => {
    const home = await serve((url, response) =>
      url === '/v1/pets' ? json(response, [pet(1)], `${link}?cursor=x`) : json(response, [pet(2)]),
    );
    const client = createPetStoreClient({ baseUrl: home.baseUrl, apiKey: KEY });
    const seen: unknown[] = [];
    const error = await failure(
      (async () => {
        for await (const item of client.pets()) seen.push(item);
      })(),
    );
    expect(error.code).toBe('untrusted_link');
    expect(seen).toEqual([pet(1)]);
    expect(home.requests.map((request) => request.url)).toEqual(['/v1/pets']);
  });
});

describe('walks that do not advance end with paging_loop', () => {
  it('a next link back to a page already fetched', async () => {
    let page = 0;
    const home = await serve((_url, response) => {
      page += 1;
      json(response, [pet(page)], page % 2 === 1 ? '/v1/pets?cursor=b' : '/v1/pets?cursor=a');
    });
    const client = createPetStoreClient({ baseUrl: home.baseUrl, apiKey: KEY });
    const error = await failure(walkAll(client.pets()));
    expect(error.code).toBe('paging_loop');
    // cursor=b, then cursor=a, then cursor=b again: refused before a fourth request.
    expect(home.requests.map((request) => request.url)).toEqual([
      '/v1/pets',
      '/v1/pets?cursor=b',
      '/v1/pets?cursor=a',
    ]);
  });

  it('an empty page that still links to a next one', async () => {
    let page = 0;
    const home = await serve((_url, response) => json(response, [], `/v1/pets?cursor=${++page}`));
    const client = createPetStoreClient({ baseUrl: home.baseUrl, apiKey: KEY });
    expect((await failure(walkAll(client.pets()))).code).toBe('paging_loop');
    expect(home.requests).toHaveLength(1);
  });

  it('endless new pages: too_many_pages at maxPages', async () => {
    let page = 0;
    const home = await serve((_url, response) => {
      page += 1;
      json(response, [pet(page)], `/v1/pets?cursor=${page}`);
    });
    const client = createPetStoreClient({ baseUrl: home.baseUrl, apiKey: KEY, maxPages: 5 });
    expect((await failure(walkAll(client.pets()))).code).toBe('too_many_pages');
    expect(home.requests).toHaveLength(5);
  });
});

describe('bodies are read up to maxBodyBytes, then the read stops', () => {
  it('an endless 2xx body: response_too_large, not retried, and the server sees the read stop', async () => {
    let written = 0;
    let closed = false;
    const home = await serve((_url, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.on('close', () => {
        closed = true;
      });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      // At most 64 MiB, written as fast as the client reads.
      const pump = () => {
        while (!closed && written < 64 * 1024 * 1024) {
          written += chunk.byteLength;
          if (!response.write(chunk)) return void response.once('drain', pump);
        }
        response.end();
      };
      pump();
    });
    const client = createPetStoreClient({
      baseUrl: home.baseUrl,
      apiKey: KEY,
      maxBodyBytes: 1024 * 1024,
      retries: 3,
    });
    const error = await failure(client.listPets());
    expect(error).toMatchObject({ status: 200, code: 'response_too_large' });
    expect(home.requests).toHaveLength(1);
    await expect.poll(() => closed).toBe(true);
    // The cap plus what was in flight in socket buffers, far from the 64 MiB on offer.
    expect(written).toBeLessThan(16 * 1024 * 1024);
  });

  it('a declared Content-Length over the cap is refused before reading', async () => {
    const home = await serve((_url, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': 2 ** 30 });
      response.write('[');
    });
    const client = createPetStoreClient({ baseUrl: home.baseUrl, apiKey: KEY });
    expect((await failure(client.listPets())).code).toBe('response_too_large');
  });
});

describe('a 2xx that is not the operation’s shape is unexpected_response, naming it', () => {
  it.each([
    ['listPets', { not: 'an array' }, 'listPets'],
    ['listPets', [{ id: 'one', name: 'x', categoryId: 1, status: 'sold' }], '0.id'],
    ['createPet', [pet(1)], 'createPet'],
  ] as const)('%s answering %j', async (operation, body, named) => {
    const home = await serve((_url, response) => json(response, body));
    const client = createPetStoreClient({ baseUrl: home.baseUrl, apiKey: KEY, retries: 2 });
    const call =
      operation === 'listPets'
        ? client.listPets()
        : client.createPet({ name: 'Rex', categoryId: 1 });
    const error = await failure(call);
    expect(error.code).toBe('unexpected_response');
    expect(error.message).toContain(operation);
    expect(error.message).toContain(named);
    expect(home.requests).toHaveLength(1);
  });

  it('pets() over a page that is not an array throws the same, never a TypeError', async () => {
    const home = await serve((_url, response) => json(response, { items: [] }));
    const client = createPetStoreClient({ baseUrl: home.baseUrl, apiKey: KEY });
    expect((await failure(walkAll(client.pets()))).code).toBe('unexpected_response');
  });
});
