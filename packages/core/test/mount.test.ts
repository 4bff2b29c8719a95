import { describe, expect, it } from 'vitest';
import { checkedPublicPath } from '../src/http/mount.js';
import { createMount, createPetStore } from '../src/index.js';
import { arrayStorage } from './support/array-storage.js';

describe('createMount: the one answer to "is this request the API\'s?"', () => {
  it('gives the rest of a target below the mount, and undefined outside it', () => {
    const mount = createMount({ mountPath: '/v1' });
    const cases: [string, string | undefined][] = [
      ['/v1', ''],
      ['/v1?limit=5', '?limit=5'],
      ['/v1/pets', '/pets'],
      ['/v1/pets?x=y', '/pets?x=y'],
      ['/v10/pets', undefined],
      ['/V1/pets', undefined],
      ['/pets', undefined],
      // Read as a URL parser reads the target, as every fetch runtime does.
      ['/x/../v1/pets', '/pets'],
      ['/v1/./pets', '/pets'],
      ['/v1/%2e%2e/admin', undefined],
      ['http://example.test/v1/pets', '/pets'],
    ];
    for (const [target, below] of cases) expect(mount.below(target), target).toBe(below);
  });

  it('asks what a router that folds case would send here only when told', () => {
    const mount = createMount({ mountPath: '/v1' });
    expect(mount.below('/V1/pets')).toBeUndefined();
    expect(mount.below('/V1/pets', false)).toBe('/pets');
  });

  it('serves every path when mounted at the root', () => {
    const mount = createMount();
    expect(mount.mountPath).toBe('');
    expect(mount.below('/pets?limit=1')).toBe('/pets?limit=1');
  });

  it('checks both paths once, at creation, with the option named', () => {
    expect(() => createMount({ mountPath: 'https://evil.example/v1' })).toThrow(/mountPath/);
    expect(() => createMount({ mountPath: '//evil.example' })).toThrow(/mountPath/);
    expect(() => createMount({ publicPath: '/v1/../admin' })).toThrow(/publicPath/);
    expect(() => createMount({ publicPath: '/v1\r\nx: y' })).toThrow(/publicPath/);
    const mount = createMount({ mountPath: 'v1/', publicPath: '/public/v1/' });
    expect([mount.mountPath, mount.publicPath]).toEqual(['/v1', '/public/v1']);
  });

  it('gives the public path: the option, else what the host cut off plus the mount', () => {
    expect(createMount({ mountPath: '/v1' }).publicPathBelow('')).toBe('/v1');
    expect(createMount({ mountPath: '/v1' }).publicPathBelow('/tenant')).toBe('/tenant/v1');
    const proxied = createMount({ mountPath: '/v1', publicPath: '/public/v1' });
    expect(proxied.publicPathBelow('/tenant')).toBe('/public/v1');
  });

  it('gives the JSON 404 outside the mount, with no request id', () => {
    const { outside } = createMount({ mountPath: '/v1' });
    expect(outside.status).toBe(404);
    expect(outside.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(outside.headers['x-request-id']).toBeUndefined();
    expect(JSON.parse(outside.body ?? '')).toEqual({
      code: 'not_found',
      message: 'Nothing is served at this path.',
      status: 404,
    });
  });
});

describe("a request's public path", () => {
  it('is checked by the core: a mount checked it already, anything else is parsed once', () => {
    createMount({ publicPath: '/already/checked' });
    expect(checkedPublicPath('/already/checked')).toBe('/already/checked');
    expect(checkedPublicPath('/trailing/')).toBe('/trailing');
    expect(checkedPublicPath('/bad\nheader')).toBeInstanceOf(TypeError);
    expect(checkedPublicPath('/bad\nheader')).toBe(checkedPublicPath('/bad\nheader'));
  });

  it('answers 500 when it is not a path, and never puts it in a header', async () => {
    const store = createPetStore({ storage: arrayStorage(), apiKeys: ['test-key-0123456789'] });
    const response = await store.handle({
      method: 'GET',
      path: '/pets',
      headers: { authorization: 'Bearer test-key-0123456789' },
      publicPath: 'https://evil.example/v1',
    });
    expect(response.status).toBe(500);
    expect(JSON.stringify(response.headers)).not.toContain('evil');
  });
});
