import { dropSchema, hostPool, uniqueSchema } from '@petstore/test-postgres/vitest';
import type { PoolClient } from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createPostgresStorage, migrate } from '../src/index.js';

// create_pet_once's claim lookup, as auto_explain logs it from inside the function. Migration
// 004 makes PostgreSQL keep one generic plan per connection (parameters shown as `$N`) instead
// of planning the lookup afresh on every call (the values written into the plan).
const admin = hostPool();
const schema = uniqueSchema('plans');

beforeAll(async () => {
  await migrate({ pool: admin, schema });
});
afterAll(async () => {
  await dropSchema(admin, schema);
  await admin.end();
});

/** The plans auto_explain logs for one call of the function, on `client`. */
async function plansOfOneCall(client: PoolClient, call: number): Promise<string[]> {
  const logged: string[] = [];
  const onNotice = (notice: { readonly message: string | undefined }): void => {
    if (notice.message !== undefined) logged.push(notice.message);
  };
  client.on('notice', onNotice);
  try {
    await client.query(
      `SELECT * FROM "${schema}".create_pet_once('Rex', 1, 'available', 'scope', $1, 'print',
        86400000, $2::bigint, ARRAY['scope']::text[])`,
      [`key-${call}`, String(call)],
    );
  } finally {
    client.off('notice', onNotice);
  }
  return logged;
}

it('create_pet_once looks a claim up with one generic plan per connection, not a plan per call', async () => {
  const client = await admin.connect();
  try {
    await client.query(`LOAD 'auto_explain'`);
    await client.query(`SET auto_explain.log_min_duration = 0`);
    await client.query(`SET auto_explain.log_nested_statements = on`);
    await client.query(`SET client_min_messages = log`);
    // PostgreSQL's own rule tries fresh plans for the first five calls, then compares.
    const lookups: string[] = [];
    for (let call = 1; call <= 8; call += 1) {
      const lookup = (await plansOfOneCall(client, call)).find((plan) =>
        plan.includes('FROM idempotency_keys c JOIN pets p'),
      );
      expect(lookup, `call ${call}`).toBeDefined();
      lookups.push(lookup ?? '');
    }
    for (const [index, plan] of lookups.entries()) {
      expect(plan, `call ${index + 1}`).toMatch(/Index Cond: .*key = \$\d+/);
      expect(plan, `call ${index + 1}`).not.toContain(`'key-${index + 1}'`);
    }
  } finally {
    // Closed rather than pooled again: its session settings would outlive the test.
    client.release(true);
  }
});

// The same for the one statement a direct connection prepares instead of calling the function:
// its lookup's `scope = ANY (…)` must not make PostgreSQL plan the whole statement per call.
it('the keyed create prepared on a direct connection keeps a generic plan after its first five calls', async () => {
  const pool = hostPool({ max: 1 });
  const storage = createPostgresStorage({ pool, schema });
  try {
    for (let call = 1; call <= 8; call += 1) {
      const claim = { scope: 'scope', key: `prepared-${call}`, fingerprint: 'f', retentionMs: 1e6 };
      const input = { name: 'Rex', categoryId: 1, status: 'available' as const };
      expect((await storage.createPetIdempotent(input, claim)).kind).toBe('created');
    }
    const { rows } = await pool.query<{ generic: string; custom: string }>(
      `SELECT generic_plans::text AS generic, custom_plans::text AS custom
       FROM pg_prepared_statements WHERE statement LIKE '%pg_try_advisory_xact_lock%'`,
    );
    expect(rows).toEqual([{ generic: '3', custom: '5' }]);
  } finally {
    await storage.close();
    await pool.end();
  }
});
