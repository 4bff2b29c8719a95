import { expect } from 'vitest';
import { BASE, bearer, get, postPet, SECOND_API_KEY } from './helpers.js';
import type { CaseContext, ConformanceCase } from './types.js';

const withKey = (key: string, extra: Record<string, string> = {}) => ({
  'idempotency-key': key,
  ...extra,
});

const count = async (send: CaseContext['send']) =>
  (JSON.parse((await send(get('/pets?limit=100'))).body) as unknown[]).length;

const badKey = (label: string, key: string): ConformanceCase => ({
  name: `idempotency: ${label} is 400 naming Idempotency-Key`,
  rule: 'Idempotency-Key: 1 to 255 visible ASCII characters',
  request: postPet({ name: 'Rex', categoryId: 1 }, withKey(key)),
  expect: { status: 400, code: 'invalid_request', mentions: ['Idempotency-Key'] },
});

export const idempotencyCases: ConformanceCase[] = [
  {
    name: 'idempotency: a retry with the same key and body replays the first 201 and creates nothing',
    rule: 'Idempotency-Key: same key + same body returns the first response again with Idempotent-Replayed: true',
    run: async ({ send }) => {
      const first = await send(postPet({ name: 'Rex', categoryId: 1 }, withKey('retry-1')));
      expect(first.status).toBe(201);
      expect(first.headers['idempotent-replayed']).toBeUndefined();
      // Same meaning, other key order and spacing: still the same request.
      const again = await send({
        ...postPet({}, withKey('retry-1')),
        body: '{ "categoryId": 1, "name": "Rex" }',
      });
      expect(again.status).toBe(201);
      expect(again.body).toBe(first.body);
      expect(again.headers.location).toBe(first.headers.location);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(await count(send)).toBe(1);
    },
  },
  {
    name: 'idempotency: the same key with a different body is 422 and creates nothing',
    rule: 'Idempotency-Key: same key with a different body is 422 idempotency_key_reused',
    run: async ({ send }) => {
      expect((await send(postPet({ name: 'Rex', categoryId: 1 }, withKey('k-422')))).status).toBe(
        201,
      );
      const other = await send(postPet({ name: 'Max', categoryId: 1 }, withKey('k-422')));
      expect(other.status).toBe(422);
      expect(JSON.parse(other.body)).toMatchObject({ code: 'idempotency_key_reused', status: 422 });
      expect(await count(send)).toBe(1);
    },
  },
  {
    name: 'idempotency: keys are scoped per API key',
    rule: 'Idempotency-Key: scoped to the API key that sent it',
    run: async ({ send }) => {
      const mine = await send(postPet({ name: 'Rex', categoryId: 1 }, withKey('shared-key')));
      const theirs = await send(
        postPet(
          { name: 'Rex', categoryId: 1 },
          { ...withKey('shared-key'), ...bearer(SECOND_API_KEY) },
        ),
      );
      expect(mine.status).toBe(201);
      expect(theirs.status).toBe(201);
      expect(theirs.headers['idempotent-replayed']).toBeUndefined();
      expect(theirs.headers.location).not.toBe(mine.headers.location);
      expect(await count(send)).toBe(2);
    },
  },
  {
    name: 'idempotency: a rejected first attempt stores no key, so a corrected retry creates the pet',
    rule: 'Idempotency-Key: the key and the pet are stored atomically',
    run: async ({ send }) => {
      expect((await send(postPet({ name: '', categoryId: 1 }, withKey('fix-me')))).status).toBe(
        400,
      );
      const fixed = await send(postPet({ name: 'Rex', categoryId: 1 }, withKey('fix-me')));
      expect(fixed.status).toBe(201);
      expect(fixed.headers['idempotent-replayed']).toBeUndefined();
    },
  },
  {
    name: 'idempotency: 50 concurrent requests with one key create exactly one pet',
    rule: 'Idempotency-Key: same key while the first is in flight is 409 idempotency_key_in_use; never a second pet',
    run: async ({ send }) => {
      const answers = await Promise.all(
        Array.from({ length: 50 }, () =>
          send(postPet({ name: 'Rush', categoryId: 3 }, withKey('burst'))),
        ),
      );
      const created = answers.filter(
        (a) => a.status === 201 && a.headers['idempotent-replayed'] === undefined,
      );
      const replayed = answers.filter(
        (a) => a.status === 201 && a.headers['idempotent-replayed'] === 'true',
      );
      const inFlight = answers.filter((a) => a.status === 409);
      expect(created).toHaveLength(1);
      expect(replayed.length + inFlight.length).toBe(49);
      for (const a of replayed) expect(a.body).toBe(created[0]?.body);
      for (const a of inFlight)
        expect(JSON.parse(a.body)).toMatchObject({ code: 'idempotency_key_in_use' });
      expect(await count(send)).toBe(1);
    },
  },
  {
    name: 'idempotency: a key is forgotten after the retention window',
    rule: 'Idempotency-Key: remembered for the retention window (an option), then purged',
    // A full second of retention: the replay must land inside it even on a loaded CI machine.
    options: { idempotency: { retentionMs: 1_000 } },
    run: async ({ send }) => {
      const first = await send(postPet({ name: 'Rex', categoryId: 1 }, withKey('short-lived')));
      const replay = await send(postPet({ name: 'Rex', categoryId: 1 }, withKey('short-lived')));
      expect(replay.headers['idempotent-replayed']).toBe('true');
      await new Promise((resolve) => setTimeout(resolve, 1_300));
      const later = await send(postPet({ name: 'Rex', categoryId: 1 }, withKey('short-lived')));
      expect(later.status).toBe(201);
      expect(later.headers['idempotent-replayed']).toBeUndefined();
      expect(later.headers.location).not.toBe(first.headers.location);
    },
  },
  badKey('an empty key', ''),
  badKey('a key with a space', 'two words'),
  badKey('a 256-character key', 'k'.repeat(256)),
  {
    name: 'idempotency: a 255-character key is accepted',
    rule: 'Idempotency-Key: 1 to 255 visible ASCII characters',
    request: postPet({ name: 'Rex', categoryId: 1 }, withKey('k'.repeat(255))),
    expect: { status: 201 },
  },
  {
    name: 'idempotency: the key is checked only after authentication',
    rule: 'Authentication runs before validation',
    request: postPet({ name: 'Rex', categoryId: 1 }, { ...withKey(''), authorization: '' }),
    expect: { status: 401, code: 'unauthorized' },
  },
  {
    name: 'idempotency: a replay answers 201 even for GET-visible state (Location readable)',
    rule: 'Idempotency-Key: same status, same id',
    run: async ({ send }) => {
      const first = await send(postPet({ name: 'Rex', categoryId: 1 }, withKey('loc')));
      const replay = await send(postPet({ name: 'Rex', categoryId: 1 }, withKey('loc')));
      const read = await send({
        method: 'GET',
        path: replay.headers.location ?? `${BASE}/none`,
        headers: bearer(),
      });
      expect(read.status).toBe(200);
      expect(read.body).toBe(first.body);
    },
  },
];
