import type { IdempotencyClaim } from '@petstore/core';
import { dropSchema, hostPool, uniqueSchema } from '@petstore/test-postgres/vitest';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresStorage, migrate } from '../src/index.js';

// A claim's scopes and key reach PostgreSQL only as bind parameters: never in a statement's text,
// which pg_stat_activity, a statement log and a tracing span's db.query.text all show.
const admin = hostPool();
const schema = uniqueSchema('bound');
// The raced case's claim, written under the same key, needs a schema of its own per case.
const schemaOf = { auto: schema, off: uniqueSchema('bound_off') } as const;
beforeAll(async () => {
  for (const each of Object.values(schemaOf)) await migrate({ pool: admin, schema: each });
});
afterAll(async () => {
  for (const each of Object.values(schemaOf)) await dropSchema(admin, each);
  await admin.end();
});

const SCOPE = 'hmac:current-scope-never-in-text';
const OLDER = 'kdf:older-scope-never-in-text';
const SECRETS = [SCOPE, OLDER, 'key-never-in-text', 'raced-key-never-in-text'];
const claim = (key: string, scope = SCOPE): IdempotencyClaim => ({
  scope,
  alsoScopes: [OLDER],
  key: `${key}-never-in-text`,
  fingerprint: 'f',
  retentionMs: 60_000,
});
const input = { name: 'Rex', categoryId: 1, status: 'available' as const };

/** A host pool that records every statement's text and values its clients send. */
function recordingPool(applicationName: string): {
  pool: pg.Pool;
  sent: { text: string; values: unknown }[];
} {
  const pool = hostPool({ max: 1, application_name: applicationName });
  const sent: { text: string; values: unknown }[] = [];
  pool.on('connect', (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    Object.assign(client, {
      query: (config: unknown, ...rest: unknown[]) => {
        const { text, values } =
          typeof config === 'string'
            ? { text: config, values: rest[0] }
            : (config as { text: unknown; values: unknown });
        sent.push({ text: String(text), values });
        return query(config, ...rest);
      },
    });
  });
  return { pool, sent };
}

// The keyed create's statement in each form: named (prepared once per connection), the statement
// itself; unnamed, a call of create_pet_once.
const KEYED = { auto: 'pg_try_advisory_xact_lock($8::bigint)', off: 'create_pet_once($1' } as const;

describe('Idempotency-Key claims on PostgreSQL: scopes and keys as bind parameters', () => {
  it.each(['auto', 'off'] as const)(
    'created, replayed, refused and raced: no scope or key in any statement text, nor in pg_stat_activity (namedStatements %s)',
    async (namedStatements) => {
      const applicationName = `bound-claims-${namedStatements}`;
      const { pool, sent } = recordingPool(applicationName);
      const schema = schemaOf[namedStatements];
      const storage = createPostgresStorage({ pool, schema, namedStatements });
      try {
        expect((await storage.createPetIdempotent(input, claim('key'))).kind).toBe('created');
        expect((await storage.createPetIdempotent(input, claim('key'))).kind).toBe('replayed');
        const other = { ...claim('key'), fingerprint: 'g' };
        expect((await storage.createPetIdempotent(input, other)).kind).toBe('fingerprint_mismatch');
        // Under the older scope only: found through alsoScopes.
        const older = { ...claim('key', 'hmac:another-never-in-text'), alsoScopes: [SCOPE] };
        expect((await storage.createPetIdempotent(input, older)).kind).toBe('replayed');

        // Raced: a claim that appears without its lock (another transaction's, committed while the
        // create waits on its row) is read by a second statement, bound too.
        const holder = await admin.connect();
        await holder.query('BEGIN');
        const pet = await holder.query<{ id: string }>(
          `INSERT INTO "${schema}".pets (name, category_id, status) VALUES ('x', 1, 'sold') RETURNING id::text`,
        );
        await holder.query(
          `INSERT INTO "${schema}".idempotency_keys (scope, key, fingerprint, pet_id, expires_at)
         VALUES ($1, $2, 'f', $3, now() + interval '1 hour')`,
          [SCOPE, claim('raced-key').key, pet.rows[0]?.id],
        );
        const raced = storage.createPetIdempotent(input, claim('raced-key'));
        // What PostgreSQL shows of the keyed create while it waits, then of the last statement.
        const activity: string[] = [];
        const ours = `SELECT query, wait_event_type FROM pg_stat_activity
        WHERE application_name = '${applicationName}'`;
        await expect
          .poll(async () => {
            const { rows } = await admin.query<{ query: string; wait_event_type: string }>(ours);
            activity.push(...rows.map((row) => row.query));
            return rows.filter((row) => row.wait_event_type === 'Lock').length;
          })
          .toBe(1);
        await holder.query('COMMIT');
        holder.release();
        expect(await raced).toMatchObject({
          kind: 'replayed',
          pet: { id: Number(pet.rows[0]?.id) },
        });
        const { rows } = await admin.query<{ query: string }>(ours);
        activity.push(...rows.map((row) => row.query));
        expect(activity.join('\n')).toContain(KEYED[namedStatements]);
        expect(activity.join('\n')).toContain('c.scope = ANY ($2');

        const texts = sent.map((statement) => statement.text);
        expect(texts.filter((text) => text.includes(KEYED[namedStatements]))).toHaveLength(5);
        // One form per pool: a direct connection that names its statements never calls the function.
        expect(texts.filter((text) => text.includes('create_pet_once')).length > 0).toBe(
          namedStatements === 'off',
        );
        expect(texts.filter((text) => text.includes('c.scope = ANY ($2'))).toHaveLength(1);
        const leaks = [...texts, ...activity].filter((text) =>
          SECRETS.some((secret) => text.includes(secret)),
        );
        expect(leaks).toEqual([]);
        // They did reach PostgreSQL, as values.
        const values = JSON.stringify(sent.map((statement) => statement.values));
        for (const secret of SECRETS) expect(values).toContain(secret);
      } finally {
        await storage.close();
        await pool.end();
      }
    },
  );

  // That the server cancels a keyed create stuck past queryTimeoutMillis is held by
  // unavailable.test.ts and pgbouncer.test.ts (every storage method, code 57014).
  it('the statement timeout set for the keyed create ends with its transaction', async () => {
    const { pool } = recordingPool('bound-timeout');
    const storage = createPostgresStorage({ pool, schema, queryTimeoutMillis: 4321 });
    try {
      expect((await storage.createPetIdempotent(input, claim('timeout'))).kind).toBe('created');
      // Same connection (max 1): the setting did not outlive the keyed create's transaction.
      const { rows } = await pool.query<{ statement_timeout: string }>('SHOW statement_timeout');
      expect(rows[0]?.statement_timeout).toBe('0');
    } finally {
      await storage.close();
      await pool.end();
    }
  });

  it('refuses text PostgreSQL would not keep unchanged (NUL, a lone surrogate) before sending it', async () => {
    const { pool, sent } = recordingPool('bound-refused');
    const storage = createPostgresStorage({ pool, schema });
    try {
      await expect(
        storage.createPetIdempotent(input, { ...claim('nul'), scope: 'id:a\u0000b' }),
      ).rejects.toThrow('parameter $4 holds NUL or a lone surrogate');
      await expect(
        storage.createPetIdempotent(input, { ...claim('lone'), alsoScopes: ['id:\ud800'] }),
      ).rejects.toThrow('parameter $9 holds NUL or a lone surrogate');
      expect(sent).toEqual([]);
    } finally {
      await storage.close();
      await pool.end();
    }
  });
});
