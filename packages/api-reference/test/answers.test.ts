import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createApiReference } from '../src/index.js';
import { CONTENT_SECURITY_POLICY } from '../src/page.js';
import { pathOf } from '../src/write.js';
import { manifest, plainBundle } from './support/assets.js';

const reference = createApiReference();
const [page = '', bundle = '', init = ''] = reference.paths;
const text = (body: Uint8Array) => Buffer.from(body).toString('utf8');
const { hash } = manifest().scalar;

describe('createApiReference: the paths it answers', () => {
  it('answers the page and its two content-hashed scripts, nothing else', () => {
    expect(reference.paths).toEqual([
      '/docs',
      `/docs/scalar.${hash}.js`,
      expect.stringMatching(/^\/docs\/init\.[0-9a-f]{16}\.js$/),
    ]);
    for (const other of ['/', '/docs/', '/docs/scalar.js', '/docs/init.js', '/DOCS', '/docsx']) {
      expect([other, reference('GET', other, {})]).toEqual([other, undefined]);
    }
  });

  it('takes path, publicPath, openApiUrl and title, and refuses a path that is no URL path', () => {
    const custom = createApiReference({
      path: '/api/reference',
      publicPath: '/api/v2',
      title: 'Shop <API> & "friends"',
    });
    expect(custom.paths[0]).toBe('/api/reference');
    const html = text(custom('GET', '/api/reference', {})?.body ?? new Uint8Array());
    expect(html).toContain('<title>Shop &lt;API&gt; &amp; &quot;friends&quot;</title>');
    expect(html).toContain(`<script src="/api/reference/scalar.${hash}.js"></script>`);
    const script = text(custom('GET', custom.paths[2] ?? '', {})?.body ?? new Uint8Array());
    expect(script).toContain('url: "/api/v2/openapi.json"');
    expect(script).toContain('window.location.origin + "/api/v2"');
    const own = createApiReference({ openApiUrl: '/spec.json', publicPath: '' });
    expect(text(own('GET', own.paths[2] ?? '', {})?.body ?? new Uint8Array())).toContain(
      'url: "/spec.json"',
    );
    // The project's one path rule (core's checkPath), as for every mount and public path.
    for (const path of ['', '/', '//evil.example', '/a b', '/a?b', '/./docs', '/a/../docs']) {
      expect(() => createApiReference({ path }), path).toThrow(TypeError);
    }
    for (const path of ['docs', '/docs/']) {
      expect(createApiReference({ path }).paths[0], path).toBe('/docs');
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
  const answer = reference('GET', page, {});

  it('is HTML naming only scripts of its own, under the CSP, revalidated each time', () => {
    expect(answer?.status).toBe(200);
    expect(answer?.headers).toMatchObject({
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-cache',
      'content-security-policy': CONTENT_SECURITY_POLICY,
      'x-content-type-options': 'nosniff',
      'content-length': String(answer?.body.byteLength),
    });
    const sources = [...text(answer?.body ?? new Uint8Array()).matchAll(/(?:src|href)="([^"]*)"/g)];
    expect(sources.map((match) => match[1])).toEqual(['data:,', bundle, init]);
  });

  it('has a policy that allows this origin only, and no eval or inline script', () => {
    expect(CONTENT_SECURITY_POLICY).toContain("default-src 'none'");
    expect(CONTENT_SECURITY_POLICY).toContain("script-src 'self';");
    expect(CONTENT_SECURITY_POLICY).toContain("connect-src 'self'");
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/unsafe-eval|https?:|\*/);
  });

  it('answers 304 to its own ETag', () => {
    const etag = answer?.headers.etag ?? '';
    expect(etag).toMatch(/^"[0-9a-f]{16}"$/);
    const again = reference('GET', page, { 'if-none-match': etag });
    expect([again?.status, again?.body.byteLength]).toEqual([304, 0]);
    expect(again?.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
  });
});

describe("Scalar's bundle", () => {
  const get = (headers: Record<string, string> = {}) => reference('GET', bundle, headers);

  it('is br for a browser, with a strong ETag, a year of immutable caching and Vary', () => {
    const answer = get({ 'accept-encoding': 'gzip, deflate, br, zstd' });
    expect(answer?.status).toBe(200);
    expect(answer?.headers).toEqual({
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cache-control': 'public, max-age=31536000, immutable',
      etag: `"${hash}-br"`,
      vary: 'accept-encoding',
      'content-type': 'text/javascript; charset=utf-8',
      'content-length': String(answer?.body.byteLength),
      'content-encoding': 'br',
    });
    expect(brotliDecompressSync(answer?.body ?? new Uint8Array()).equals(plainBundle())).toBe(true);
  });

  it('is gzip when br is refused (q=0), identity when both are, each with its own ETag', () => {
    const gzip = get({ 'accept-encoding': 'br;q=0, gzip' });
    expect([gzip?.headers['content-encoding'], gzip?.headers.etag]).toEqual([
      'gzip',
      `"${hash}-gzip"`,
    ]);
    expect(gunzipSync(gzip?.body ?? new Uint8Array()).equals(plainBundle())).toBe(true);
    for (const headers of [{}, { 'accept-encoding': 'br;q=0, gzip;q=0' }]) {
      const plain = get(headers);
      expect(plain?.headers['content-encoding']).toBeUndefined();
      expect(plain?.headers.etag).toBe(`"${hash}"`);
      expect(Buffer.from(plain?.body ?? []).equals(plainBundle())).toBe(true);
    }
  });

  it('answers 304 when If-None-Match names the coding it would send, with no body', () => {
    const answer = get({ 'accept-encoding': 'br', 'if-none-match': `W/"x", "${hash}-br"` });
    expect(answer?.status).toBe(304);
    expect(answer?.body.byteLength).toBe(0);
    expect(answer?.headers).toEqual({
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cache-control': 'public, max-age=31536000, immutable',
      etag: `"${hash}-br"`,
      vary: 'accept-encoding',
    });
    // The tag of another coding is another representation: sent whole.
    const other = get({ 'accept-encoding': 'gzip', 'if-none-match': `"${hash}-br"` });
    expect([other?.status, other?.headers['content-encoding']]).toEqual([200, 'gzip']);
  });

  it('answers HEAD like GET, without the body', () => {
    const head = reference('HEAD', bundle, { 'accept-encoding': 'br' });
    const full = get({ 'accept-encoding': 'br' });
    expect(head?.status).toBe(200);
    expect(head?.headers).toEqual(full?.headers);
    expect(head?.body.byteLength).toBe(0);
  });

  it('answers 406 when no coding it has is acceptable', () => {
    const answer = get({ 'accept-encoding': 'identity;q=0, br;q=0, gzip;q=0' });
    expect(answer?.status).toBe(406);
    expect(JSON.parse(text(answer?.body ?? new Uint8Array()))).toMatchObject({
      code: 'not_acceptable',
      status: 406,
    });
  });

  it('hands out the same bytes every time: nothing is encoded or copied per request', () => {
    const first = get({ 'accept-encoding': 'br' });
    expect(get({ 'accept-encoding': 'br' })?.body).toBe(first?.body);
    expect(get()?.body).toBe(get()?.body);
  });
});

describe('the start script', () => {
  it('is a small immutable script with its own ETag, sent as is whatever the client accepts', () => {
    const answer = reference('GET', init, { 'accept-encoding': 'br, gzip' });
    expect(answer?.headers['content-encoding']).toBeUndefined();
    expect(answer?.headers.vary).toBeUndefined();
    expect(answer?.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(init).toContain(answer?.headers.etag?.slice(1, -1));
    const script = text(answer?.body ?? new Uint8Array());
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
    (method) => {
      for (const path of reference.paths) {
        const answer = reference(method, path, {});
        expect(answer?.status).toBe(405);
        expect(answer?.headers.allow).toBe('GET, HEAD');
        expect(JSON.parse(text(answer?.body ?? new Uint8Array()))).toMatchObject({
          code: 'method_not_allowed',
          status: 405,
        });
      }
    },
  );
});

describe('pathOf (the Node mounts)', () => {
  it.each([
    ['/docs', '/docs'],
    ['/docs?x=1', '/docs'],
    ['http://127.0.0.1:3000/docs?x', '/docs'], // absolute form, as sent to a proxy
    ['http://127.0.0.1:3000', '/'],
    ['*', '*'],
  ])('%s → %s', (target, path) => {
    expect(pathOf(target)).toBe(path);
  });
});
