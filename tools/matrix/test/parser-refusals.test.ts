import { type RawAnswer, type RunningServer, rawRequest } from '@petstore/conformance';
import { createPetStore } from '@petstore/core';
import { createMemoryStorage } from '@petstore/storage-memory';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOSTS, type Host } from '../src/index.js';

const KEY = 'parser-refusals-key-0123';
const AUTH = `Authorization: Bearer ${KEY}\r\n`;

/** Requests Node's HTTP layer refuses before any route, and the answer each must get. */
const REFUSED: ReadonlyArray<readonly [string, string, number, string]> = [
  [
    'an Expect other than 100-continue',
    `GET /v1/pets HTTP/1.1\r\nHost: t\r\n${AUTH}Expect: foo\r\n\r\n`,
    417,
    'expectation_failed',
  ],
  ['no Host on HTTP/1.1', `GET /v1/pets HTTP/1.1\r\n${AUTH}\r\n`, 400, 'invalid_request'],
  [
    'two Host headers',
    `GET /v1/pets HTTP/1.1\r\nHost: a\r\nHost: b\r\n${AUTH}\r\n`,
    400,
    'invalid_request',
  ],
  [
    'Content-Length with Transfer-Encoding',
    `POST /v1/pets HTTP/1.1\r\nHost: t\r\n${AUTH}Content-Type: application/json\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
    400,
    'invalid_request',
  ],
  [
    'headers over the limit',
    `GET /v1/pets HTTP/1.1\r\nHost: t\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    431,
    'headers_too_large',
  ],
  [
    'raw non-ASCII in the target',
    'GET /v1/p\u00e9ts HTTP/1.1\r\nHost: t\r\n\r\n',
    400,
    'invalid_request',
  ],
  [
    'CONNECT',
    'CONNECT 127.0.0.1:443 HTTP/1.1\r\nHost: 127.0.0.1:443\r\n\r\n',
    400,
    'invalid_request',
  ],
  [
    'a version other than 1.x',
    'GET /v1/pets HTTP/3.0\r\nHost: t\r\n\r\n',
    505,
    'http_version_not_supported',
  ],
];

const listening = Object.entries(HOSTS as Record<string, Host>).filter(
  (entry): entry is [string, Host & Required<Pick<Host, 'listen'>>] =>
    entry[1].listen !== undefined,
);

describe.each(listening)('%s, set up as its README says', (_name, host) => {
  let api: RunningServer;
  beforeAll(async () => {
    const store = createPetStore({ storage: createMemoryStorage(), apiKeys: [KEY] });
    api = await host.listen(store, { mountPath: '/v1' });
  });
  afterAll(() => api.close());

  it.each(REFUSED)('answers %s with the Error body', async (_what, bytes, status, code) => {
    const answer: RawAnswer = await rawRequest(
      Number(new URL(api.origin).port),
      Buffer.from(bytes, 'latin1'),
    );
    expect([answer.status, answer.headers['content-type']]).toEqual([
      status,
      'application/json; charset=utf-8',
    ]);
    expect(JSON.parse(answer.body)).toMatchObject({ code, status });
    expect(answer.headers['x-request-id']).toMatch(/^[\x21-\x7e]{1,128}$/);
    expect(answer.headers.connection).toBe('close');
  });
});

/** HTTP/1.0 has no Host rule (RFC 9112 section 3.2 is HTTP/1.1's): answered as any request. */
const HTTP_1_0: ReadonlyArray<readonly [string, string, number]> = [
  ['a list', `GET /v1/pets HTTP/1.0\r\n${AUTH}\r\n`, 200],
  ['the document', 'GET /v1/openapi.json HTTP/1.0\r\n\r\n', 200],
  ['no key', 'GET /v1/pets HTTP/1.0\r\n\r\n', 401],
  ['an unknown path under the mount', `GET /v1/nothing HTTP/1.0\r\n${AUTH}\r\n`, 404],
];

describe.each(listening)('%s, HTTP/1.0 without Host', (_name, host) => {
  let api: RunningServer;
  beforeAll(async () => {
    const store = createPetStore({ storage: createMemoryStorage(), apiKeys: [KEY] });
    api = await host.listen(store, { mountPath: '/v1' });
  });
  afterAll(() => api.close());

  it.each(HTTP_1_0)('answers %s as the contract says', async (_what, bytes, status) => {
    const answer = await rawRequest(Number(new URL(api.origin).port), Buffer.from(bytes, 'latin1'));
    expect(answer.status).toBe(status);
    expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(answer.headers['x-request-id']).toMatch(/^[\x21-\x7e]{1,128}$/);
  });
});
