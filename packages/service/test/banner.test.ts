import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { bannerLines, urlHost } from '../src/banner.js';

const at = (address: string, family: string, port = 3000): AddressInfo => ({
  address,
  family,
  port,
});

describe('the start-up banner', () => {
  it('prints a URL curl can use, even when bound to every interface', () => {
    expect(urlHost(at('127.0.0.1', 'IPv4'))).toBe('127.0.0.1');
    expect(urlHost(at('0.0.0.0', 'IPv4'))).toBe('127.0.0.1');
    expect(urlHost(at('::', 'IPv6'))).toBe('[::1]');
    expect(urlHost(at('::1', 'IPv6'))).toBe('[::1]');
  });

  it('shows a generated key once, in the key line and the curl hint', () => {
    const lines = bannerLines({
      address: at('127.0.0.1', 'IPv4', 4321),
      publicPath: '/v1',
      storage: 'in-memory (data is lost on exit)',
      seeded: 2,
      config: { apiKeys: ['gen-key'], keyGenerated: true, seedPets: 2 },
      management: at('127.0.0.1', 'IPv4', 9464),
    });
    expect(lines).toEqual([
      'pet store listening on http://127.0.0.1:4321/v1',
      'storage: in-memory (data is lost on exit), 2 demo pets created',
      'API key (generated, shown once; set API_KEYS to choose your own): gen-key',
      'try: curl -H "Authorization: Bearer gen-key" http://127.0.0.1:4321/v1/pets',
      'management: http://127.0.0.1:9464 (/healthz, /readyz, /metrics)',
    ]);
  });

  it('says where a kept key lives, and prints it at every start', () => {
    const lines = bannerLines({
      address: at('127.0.0.1', 'IPv4', 3000),
      publicPath: '/v1',
      storage: 'SQLite file /d/petstore/pets.db',
      seeded: 0,
      config: {
        apiKeys: ['kept-key'],
        keyGenerated: true,
        keyFile: '/d/petstore/api-key',
        seedPets: 0,
      },
    });
    expect(lines[2]).toBe(
      'API key (generated, kept in /d/petstore/api-key; set API_KEYS to choose your own): kept-key',
    );
  });

  it('never prints keys from API_KEYS', () => {
    const lines = bannerLines({
      address: at('::1', 'IPv6', 80),
      publicPath: '/v1',
      storage: 'PostgreSQL',
      seeded: 0,
      config: { apiKeys: ['mine', 'yours'], keyGenerated: false, seedPets: 0 },
    });
    expect(lines.join('\n')).not.toMatch(/mine|yours/);
    expect(lines).toContain('API keys: 2 from API_KEYS');
    expect(lines.at(-1)).toBe(
      'management: off (MANAGEMENT_PORT=off); /healthz and /readyz on the API port',
    );
    // No $API_KEY: nothing sets that variable.
    expect(lines).toContain(
      'try: curl -H "Authorization: Bearer <a key from API_KEYS>" http://[::1]:80/v1/pets',
    );
  });

  it('says when SEED_PETS was skipped because the storage already holds pets', () => {
    const facts = {
      address: at('127.0.0.1', 'IPv4'),
      publicPath: '/v1',
      storage: 'PostgreSQL',
      config: { apiKeys: ['k'], keyGenerated: true, seedPets: 5 },
    };
    expect(bannerLines({ ...facts, seeded: 0 })[1]).toBe(
      'storage: PostgreSQL, SEED_PETS=5 skipped: the storage already holds pets',
    );
    expect(bannerLines({ ...facts, seeded: 5 })[1]).toBe(
      'storage: PostgreSQL, 5 demo pets created',
    );
  });
});
