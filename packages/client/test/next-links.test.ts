import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createPetStoreClient, PetStoreError } from '../src/index.js';
import { type StubServer, stubServer } from './support/stub-server.js';

// Next links a hostile or broken service may send, over real sockets: the API's own server on
// 127.0.0.1, another port on 127.0.0.1 and another host on 127.0.0.2, each counting what reaches
// it. A walk follows a link only to the exact path it started from, on the same origin; every
// other one ends it with a PetStoreError before any request, so the key reaches nothing else.

const KEY = 'next-link-test-key-0123';
const servers: StubServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const pet = (id: number) => ({ id, name: `pet-${id}`, categoryId: 1, status: 'available' });
const order = (id: number) => ({
  id,
  petId: 1,
  quantity: 1,
  shipDate: '2026-01-01T00:00:00Z',
  status: 'placed',
  complete: false,
});

/** A Link header value as raw bytes: a string's UTF-8, sent as Node sends latin1 (byte for byte). */
const asBytes = (text: string) => Buffer.from(text, 'utf8').toString('latin1');

interface Servers {
  readonly home: StubServer;
  readonly otherPort: StubServer;
  readonly otherHost: StubServer;
  /** The port of `home`. */
  readonly port: string;
}

/**
 * The API at `home` answers the first page of pets or orders with one item and `link` as the
 * next (`{port}`, `{otherPort}`, `{otherHost}` replaced by those servers' ports), later pages
 * with one more item and no link; the two others answer every request with a page too, so a
 * request that reached them would be seen to succeed.
 */
async function start(link: string): Promise<Servers> {
  const page =
    (items: unknown[], next?: string) => (_request: unknown, response: ServerResponse) => {
      response.writeHead(200, {
        'content-type': 'application/json',
        ...(next === undefined ? {} : { link: `<${asBytes(next)}>; rel="next"` }),
      });
      response.end(JSON.stringify(items));
    };
  const otherPort = await stubServer(page([pet(98)]));
  const otherHost = await stubServer(page([pet(99)]), '127.0.0.2');
  servers.push(otherPort, otherHost);
  let target = '';
  const home = await stubServer((request: IncomingMessage, response: ServerResponse) => {
    const url = request.url ?? '';
    const first = url === '/v1/pets' || url === '/v1/store/orders';
    const item = url.startsWith('/v1/store/orders') ? order : pet;
    page([item(first ? 1 : 2)], first ? target : undefined)(request, response);
  });
  servers.push(home);
  const port = new URL(home.baseUrl).port;
  target = link
    .replaceAll('{port}', port)
    .replaceAll('{otherPort}', new URL(otherPort.baseUrl).port)
    .replaceAll('{otherHost}', new URL(otherHost.baseUrl).port);
  return { home, otherPort, otherHost, port };
}

/** Every request that carried the key, as `host path`. */
const keyed = ({ home, otherPort, otherHost }: Servers) =>
  [home, otherPort, otherHost].flatMap((server) =>
    server.requests
      .filter((request) => request.authorization === `Bearer ${KEY}`)
      .map((request) => `${new URL(server.baseUrl).host} ${request.url}`),
  );

async function walk(
  iterator: AsyncIterable<unknown>,
): Promise<{ seen: unknown[]; error: unknown }> {
  const seen: unknown[] = [];
  try {
    for await (const item of iterator) seen.push(item);
  } catch (error) {
    return { seen, error };
  }
  return { seen, error: undefined };
}

describe('pets() follows a next link only to its own path', () => {
  it.each([
    ['/v1/%252e%252e%252fadmin', 'percent-encoded twice'],
    ['/v1/pets/%252e%252e/admin', 'a dot segment encoded twice'],
    ['/v1/pets/..%00/admin', 'NUL'],
    ['/v1/pets/\uFF0E\uFF0E/admin', 'full-width dots, raw UTF-8 in the header'],
    ['/v1/pets/%EF%BC%8E%EF%BC%8E/admin', 'full-width dots, percent-encoded (NFKC: ..)'],
    ['/v1/pets/..%EF%BC%8F..%EF%BC%8Fadmin', 'full-width solidus (NFKC: /)'],
    ['//evil.example/v1/pets', 'another host, scheme-relative'],
    ['//127.0.0.2:{otherHost}/v1/pets', 'another host that listens'],
    ['http://127.0.0.1:{otherPort}/v1/pets', 'another port'],
    ['https://127.0.0.1:{port}/v1/pets', 'another scheme'],
    ['http://user:secret@127.0.0.1:{port}/v1/pets', 'credentials'],
    ['/v1/pets/../../admin', 'dot segments'],
    ['/v1/%2e%2e/admin', '%2e%2e'],
    ['/v1/%2E%2E/admin', 'uppercase %2E'],
    ['/v1/pets/%2e%2e%2fadmin', 'an encoded slash after %2e%2e'],
    ['/v1/pets%2f..', 'an encoded slash'],
    ['/v1/pets%5c..%5c..%5cadmin', 'encoded backslashes'],
    ['\\v1\\admin', 'backslashes'],
    ['/v1//pets', 'an empty segment'],
    ['/v1/pets;x', 'a ; parameter'],
    ['/v1/pets/..;/admin', '..; read as .. by some servers'],
    ['/v1/pets/', 'a trailing slash'],
    ['/v1/pets/%0d%0aX-Injected:%20yes', 'control characters'],
    ['/v1/store/orders', "another listing's path"],
    ['/v1/pets/1', 'a path below'],
    ['/admin/pets', 'outside the base path'],
  ])('%s (%s): untrusted_link, and the key reached only the first page', async (link) => {
    const all = await start(`${link}?cursor=x`);
    const client = createPetStoreClient({ baseUrl: all.home.baseUrl, apiKey: KEY });
    const { seen, error } = await walk(client.pets());
    expect(error).toBeInstanceOf(PetStoreError);
    expect(error).toMatchObject({ code: 'untrusted_link', status: 0 });
    const { message } = error as PetStoreError;
    expect(message).not.toContain('cursor=x');
    expect(message).not.toContain('secret');
    expect([...message].some((char) => char.charCodeAt(0) < 0x20)).toBe(false);
    expect(seen).toEqual([pet(1)]);
    expect(keyed(all)).toEqual([`127.0.0.1:${all.port} /v1/pets`]);
    expect(all.otherPort.requests).toEqual([]);
    expect(all.otherHost.requests).toEqual([]);
  });

  it.each([
    ['http://[bad/v1', 'an unclosed IPv6 host'],
    ['http://127.0.0.1:99999/v1/pets', 'a port out of range'],
    ['http://', 'no host'],
  ])('%s (%s): a PetStoreError, never a TypeError, from pets() and listPets()', async (link) => {
    const all = await start(link);
    const client = createPetStoreClient({ baseUrl: all.home.baseUrl, apiKey: KEY });
    const { seen, error } = await walk(client.pets());
    expect(error).toBeInstanceOf(PetStoreError);
    expect(error).toMatchObject({ code: 'unexpected_response', status: 200 });
    expect((error as PetStoreError).message).toContain('Link');
    // The page came, but its next link cannot be used: nothing of it is given out.
    expect(seen).toEqual([]);
    const page = await client.listPets().catch((thrown: unknown) => thrown);
    expect(page).toBeInstanceOf(PetStoreError);
    expect(page).toMatchObject({ code: 'unexpected_response' });
    expect(keyed(all)).toHaveLength(2);
  });

  it.each([
    ['/v1/pets?cursor=x', 'the path as the service writes it'],
    ['http://127.0.0.1:{port}/v1/pets?cursor=x', 'the same origin, absolute'],
    ['/v1/x/../pets?cursor=x', 'dot segments the client resolves to its own path'],
    ['pets?cursor=x', 'relative to the page'],
  ])('%s (%s): followed, to exactly its own path', async (link) => {
    const all = await start(link);
    const client = createPetStoreClient({ baseUrl: all.home.baseUrl, apiKey: KEY });
    const { seen, error } = await walk(client.pets());
    expect(error).toBeUndefined();
    expect(seen).toEqual([pet(1), pet(2)]);
    expect(keyed(all)).toEqual([
      `127.0.0.1:${all.port} /v1/pets`,
      `127.0.0.1:${all.port} /v1/pets?cursor=x`,
    ]);
  });
});

describe('orders() follows a next link only to its own path', () => {
  it('/v1/pets from orders(): untrusted_link, nothing sent', async () => {
    const all = await start('/v1/pets?cursor=x');
    const client = createPetStoreClient({ baseUrl: all.home.baseUrl, apiKey: KEY });
    const { seen, error } = await walk(client.orders());
    expect(error).toMatchObject({ code: 'untrusted_link' });
    expect(seen).toEqual([order(1)]);
    expect(keyed(all)).toEqual([`127.0.0.1:${all.port} /v1/store/orders`]);
  });

  it('/v1/store/orders: followed', async () => {
    const all = await start('/v1/store/orders?cursor=x');
    const client = createPetStoreClient({ baseUrl: all.home.baseUrl, apiKey: KEY });
    expect(await walk(client.orders())).toEqual({ seen: [order(1), order(2)], error: undefined });
  });
});

describe('baseUrl decides where the key goes', () => {
  it.each([
    ['v1', 'relative'],
    ['ftp://127.0.0.1/v1', 'not http'],
    ['http://127.0.0.1/v1?x=1', 'a query'],
    ['http://127.0.0.1/v1#x', 'a fragment'],
    ['http://user:hunter2@127.0.0.1/v1', 'credentials'],
  ])('%s (%s): a TypeError at once, without echoing it', (baseUrl) => {
    let error: unknown;
    try {
      createPetStoreClient({ baseUrl, apiKey: KEY });
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(TypeError);
    expect((error as TypeError).message).toContain('baseUrl');
    expect((error as TypeError).message).not.toContain('hunter2');
  });
});
