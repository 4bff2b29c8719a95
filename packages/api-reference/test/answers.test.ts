import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { HandlerResponse } from '@petstore/core';
import { describe, expect, it } from 'vitest';
import { type ApiReference, createApiReference, type RequestHeaders } from '../src/index.js';
import { CONTENT_SECURITY_POLICY } from '../src/page.js';
import { manifest, plainBundle } from './support/assets.js';

const reference = createApiReference();
const [page = '', bundle = '', init = ''] = reference.paths;
/** The answer to `method path` below the mount, the page's public path `/docs` (as mounted there). */
const ask = (
  method: string,
  path: string,
  headers: RequestHeaders = {},
  from: ApiReference = reference,
): Promise<HandlerResponse> => from.handle({ method, path, headers, publicPath: '/docs' });
const bytes = (answer: HandlerResponse | undefined): Buffer => Buffer.from(answer?.body ?? '');
const text = (answer: HandlerResponse | undefined) => bytes(answer).toString('utf8');
const { hash } = manifest().scalar;

describe('createApiReference: the paths it answers', () => {
  it('answers the page and its two content-hashed scripts below its mount; the rest is the JSON 404', async () => {
    expect(reference.path).toBe('/docs');
    expect(reference.paths).toEqual([
      '/',
      `/scalar.${hash}.js`,
      expect.stringMatching(/^\/init\.[0-9a-f]{16}\.js$/),
    ]);
    for (const other of [
      '/docs',
      '/scalar.js',
      '/init.js',
      '/DOCS',
      '//',
      `/x/scalar.${hash}.js`,
    ]) {
      const answer = await ask('GET', other);
      expect([other, answer.status, JSON.parse(text(answer)).code]).toEqual([
        other,
        404,
        'not_found',
      ]);
    }
  });

  it("points the page at its scripts where the page is seen (the request's public path)", async () => {
    const atRoot = text(await reference.handle({ method: 'GET', path: '/', headers: {} }));
    expect(atRoot).toContain(`<script src="/docs/scalar.${hash}.js"></script>`);
    const nested = text(
      await reference.handle({ method: 'GET', path: '/', headers: {}, publicPath: '/tenant/docs' }),
    );
    expect(nested).toContain(`<script src="/tenant/docs/scalar.${hash}.js"></script>`);
    expect(nested).toContain(`<script src="/tenant/docs${init}"></script>`);
  });

  it('takes path, publicPath, openApiUrl and title, and refuses a path that is no URL path', async () => {
    const custom = createApiReference({
      path: '/api/reference',
      publicPath: '/api/v2',
      title: 'Shop <API> & "friends"',
    });
    expect(custom.path).toBe('/api/reference');
    const html = text(await custom.handle({ method: 'GET', path: '/', headers: {} }));
    expect(html).toContain('<title>Shop &lt;API&gt; &amp; &quot;friends&quot;</title>');
    expect(html).toContain(`<script src="/api/reference/scalar.${hash}.js"></script>`);
    const script = text(await ask('GET', custom.paths[2] ?? '', {}, custom));
    expect(script).toContain('url: "/api/v2/openapi.json"');
    expect(script).toContain('window.location.origin + "/api/v2"');
    const own = createApiReference({ openApiUrl: '/spec.json', publicPath: '' });
    expect(text(await ask('GET', own.paths[2] ?? '', {}, own))).toContain('url: "/spec.json"');
    // The project's one path rule (core's checkPath), as for every mount and public path.
    for (const path of ['', '/', '//evil.example', '/a b', '/a?b', '/./docs', '/a/../docs']) {
      expect(() => createApiReference({ path }), path).toThrow(TypeError);
    }
    for (const path of ['docs', '/docs/']) {
      expect(createApiReference({ path }).path, path).toBe('/docs');
    }
    expect(createApiReference({ publicPath: 'v1/' }).paths).toHaveLength(3);
    expect(() => createApiReference({ publicPath: 'https://x/v1' })).toThrow(
      /publicPath must be a path/,
    );
    expect(() => createApiReference({ openApiUrl: 'https://elsewhere.example/o.json' })).toThrow(
      /openApiUrl must be a path/,
    );
  });
});

describe('the page', () => {
  it('is HTML naming only scripts of its own, under the CSP, revalidated each time', async () => {
    const answer = await ask('GET', page);
    expect(answer.status).toBe(200);
    expect(answer.headers).toMatchObject({
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-cache',
      'content-security-policy': CONTENT_SECURITY_POLICY,
      'x-content-type-options': 'nosniff',
    });
    // The adapter that writes the body gives its length.
    expect(answer.headers).not.toHaveProperty('content-length');
    const sources = [...text(answer).matchAll(/(?:src|href)="([^"]*)"/g)];
    expect(sources.map((match) => match[1])).toEqual(['data:,', `/docs${bundle}`, `/docs${init}`]);
  });

  it('has a policy that allows this origin only, and no eval or inline script', () => {
    expect(CONTENT_SECURITY_POLICY).toContain("default-src 'none'");
    expect(CONTENT_SECURITY_POLICY).toContain("script-src 'self';");
    expect(CONTENT_SECURITY_POLICY).toContain("connect-src 'self'");
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-eval|https?:|\*/);
  });

  it('answers 304 to its own ETag', async () => {
    const etag = (await ask('GET', page)).headers.etag ?? '';
    expect(etag).toMatch(/^"[0-9a-f]{16}"$/);
    const again = await ask('GET', page, { 'if-none-match': etag });
    expect([again.status, again.body]).toEqual([304, undefined]);
    expect(again.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
  });
});

describe("Scalar's bundle", () => {
  const get = (headers: Record<string, string> = {}) => ask('GET', bundle, headers);

  it('is br for a browser, with a strong ETag, a year of immutable caching and Vary', async () => {
    const answer = await get({ 'accept-encoding': 'gzip, deflate, br, zstd' });
    expect(answer.status).toBe(200);
    expect(answer.headers).toEqual({
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cache-control': 'public, max-age=31536000, immutable',
      etag: `"${hash}-br"`,
      vary: 'accept-encoding',
      'content-type': 'text/javascript; charset=utf-8',
      'content-encoding': 'br',
    });
    expect(brotliDecompressSync(bytes(answer)).equals(plainBundle())).toBe(true);
  });

  it('is gzip when br is refused (q=0), identity when both are, each with its own ETag', async () => {
    const gzip = await get({ 'accept-encoding': 'br;q=0, gzip' });
    expect([gzip.headers['content-encoding'], gzip.headers.etag]).toEqual([
      'gzip',
      `"${hash}-gzip"`,
    ]);
    expect(gunzipSync(bytes(gzip)).equals(plainBundle())).toBe(true);
    for (const headers of [{}, { 'accept-encoding': 'br;q=0, gzip;q=0' }]) {
      const plain = await get(headers);
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.headers.etag).toBe(`"${hash}"`);
      expect(bytes(plain).equals(plainBundle())).toBe(true);
    }
  });

  it('answers 304 when If-None-Match names the coding it would send, with no body', async () => {
    const answer = await get({ 'accept-encoding': 'br', 'if-none-match': `W/"x", "${hash}-br"` });
    expect(answer.status).toBe(304);
    expect(answer.body).toBeUndefined();
    expect(answer.headers).toEqual({
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cache-control': 'public, max-age=31536000, immutable',
      etag: `"${hash}-br"`,
      vary: 'accept-encoding',
    });
    // The tag of another coding is another representation: sent whole.
    const other = await get({ 'accept-encoding': 'gzip', 'if-none-match': `"${hash}-br"` });
    expect([other.status, other.headers['content-encoding']]).toEqual([200, 'gzip']);
  });

  it('answers HEAD like GET, without the body, with the length a GET would send', async () => {
    const head = await ask('HEAD', bundle, { 'accept-encoding': 'br' });
    const full = await get({ 'accept-encoding': 'br' });
    expect(head.status).toBe(200);
    expect(head.headers).toEqual({
      ...full.headers,
      'content-length': String(bytes(full).byteLength),
    });
    expect(head.body).toBeUndefined();
  });

  it('answers 406 when no coding it has is acceptable', async () => {
    const answer = await get({ 'accept-encoding': 'identity;q=0, br;q=0, gzip;q=0' });
    expect(answer.status).toBe(406);
    expect(JSON.parse(text(answer))).toMatchObject({
      code: 'not_acceptable',
      status: 406,
    });
  });

  it('hands out the same bytes every time: nothing is encoded or copied per request', async () => {
    const first = await get({ 'accept-encoding': 'br' });
    expect((await get({ 'accept-encoding': 'br' })).body).toBe(first.body);
    expect((await get()).body).toBe((await get()).body);
  });
});

describe('the start script', () => {
  it('is a small immutable script with its own ETag, sent as is whatever the client accepts', async () => {
    const answer = await ask('GET', init, { 'accept-encoding': 'br, gzip' });
    expect(answer.headers['content-encoding']).toBeUndefined();
    expect(answer.headers.vary).toBeUndefined();
    expect(answer.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(init).toContain(answer.headers.etag?.slice(1, -1));
    const script = text(answer);
    expect(script).toContain('url: "/v1/openapi.json"');
    for (const off of [
      'withDefaultFonts: false',
      'telemetry: false',
      'agent: { disabled: true }',
    ]) {
      expect(script).toContain(off);
    }
  });
});

describe('other methods', () => {
  it.each(['POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH', 'get'])(
    '%s is a 405 with Allow',
    async (method) => {
      for (const path of reference.paths) {
        const answer = await ask(method, path);
        expect(answer.status).toBe(405);
        expect(answer.headers.allow).toBe('GET, HEAD');
        expect(JSON.parse(text(answer))).toMatchObject({
          code: 'method_not_allowed',
          status: 405,
        });
      }
    },
  );
});
