import { describe, expect, it } from 'vitest';
import { PetStoreError } from '../src/errors.js';
import { nextLink, nextPage } from '../src/link.js';
import { BASE_BACKOFF_MS, backoffMs, MAX_BACKOFF_MS, retryAfterMs, sleep } from '../src/retry.js';

describe('nextLink', () => {
  it('finds rel="next" among other links, quoted or not, in a relation list', () => {
    expect(nextLink('</v1/pets?limit=2&cursor=Mg>; rel="next"')).toBe('/v1/pets?limit=2&cursor=Mg');
    expect(nextLink('</v1/pets>; rel="successor-version", </v1/pets?cursor=Aw>; rel=next')).toBe(
      '/v1/pets?cursor=Aw',
    );
    expect(nextLink('<https://a.example/p?cursor=x>; title="n, m"; rel="prev next"')).toBe(
      'https://a.example/p?cursor=x',
    );
    expect(nextLink('</v1/pets>; rel="successor-version"')).toBeUndefined();
    expect(nextLink(null)).toBeUndefined();
  });

  it('resolves the next link against the page, or throws a PetStoreError when it is no URL', () => {
    const page = 'http://127.0.0.1:1/v1/pets?limit=2';
    const answer = (link?: string) =>
      new Response('[]', { headers: link === undefined ? {} : { link, 'x-request-id': 'r-1' } });
    const next = nextPage('listPets', answer('</v1/pets?limit=2&cursor=Mg>; rel="next"'), page);
    expect(next?.href).toBe('http://127.0.0.1:1/v1/pets?limit=2&cursor=Mg');
    expect(next?.searchParams.get('cursor')).toBe('Mg');
    expect(nextPage('listPets', answer(), page)).toBeUndefined();
    expect(() => nextPage('listPets', answer('<http://[bad/v1>; rel="next"'), page)).toThrow(
      PetStoreError,
    );
    expect(() => nextPage('listPets', answer('<http://[bad/v1>; rel="next"'), page)).toThrow(
      /listPets: the answer's Link header names a next page that is not a URL/,
    );
  });
});

describe('waits', () => {
  it('takes Retry-After as seconds or an HTTP date, capped, and ignores nonsense', () => {
    const now = Date.parse('2026-11-23T12:00:00Z');
    expect(retryAfterMs('1', now)).toBe(1000);
    expect(retryAfterMs(' 3 ', now)).toBe(3000);
    expect(retryAfterMs('Mon, 23 Nov 2026 12:00:05 GMT', now)).toBe(5000);
    expect(retryAfterMs('Mon, 23 Nov 2026 11:00:00 GMT', now)).toBe(0);
    expect(retryAfterMs('86400', now)).toBe(60_000);
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs('-1', now)).toBeUndefined();
    expect(retryAfterMs(null, now)).toBeUndefined();
  });

  it('backs off exponentially with jitter: half of each step fixed, half random, capped', () => {
    expect(backoffMs(1, () => 0)).toBe(BASE_BACKOFF_MS / 2);
    expect(backoffMs(1, () => 1)).toBe(BASE_BACKOFF_MS);
    expect(backoffMs(3, () => 0.5)).toBe(BASE_BACKOFF_MS * 4 * 0.75);
    expect(backoffMs(30, () => 1)).toBe(MAX_BACKOFF_MS);
    const spread = new Set(Array.from({ length: 20 }, () => backoffMs(2)));
    expect(spread.size).toBeGreaterThan(1);
  });

  it('sleeps until the signal aborts, then rejects with its reason; never starts when aborted', async () => {
    const controller = new AbortController();
    const started = performance.now();
    const waiting = sleep(10_000, controller.signal);
    setTimeout(() => controller.abort(new Error('gone')), 20);
    await expect(waiting).rejects.toThrow('gone');
    expect(performance.now() - started).toBeLessThan(1_000);
    await expect(sleep(10_000, controller.signal)).rejects.toThrow('gone');
    await expect(sleep(1, new AbortController().signal)).resolves.toBeUndefined();
  });
});
