import { fileURLToPath } from 'node:url';
import { sendHttp } from '@petstore/conformance';
import { type PostgresServer, startPostgresServer } from '@petstore/test-postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killStartedApps, startListening } from '../../testing/index.js';

// DATABASE_READ_URL the service cannot use: reads go to the primary (every list still answers),
// and the service says so, in a warn line with pg's reason (never the password) and in
// petstore_db_reads_total, by where each read went. A PostgreSQL with password authentication
// of its own (the shared test server trusts any password).

const KEY = 'replica-reads-key-0123';
const PASSWORD = 'right-password-0123';
const WRONG = 'wrong-password-4567';
const APP = fileURLToPath(new URL('../..', import.meta.url));

/** `petstore_db_reads_total` samples as `target,outcome` → value. */
async function readsTotal(management: string): Promise<Record<string, number>> {
  const res = await sendHttp(management, { method: 'GET', path: '/metrics' });
  const out: Record<string, number> = {};
  for (const match of res.body.matchAll(
    /^petstore_db_reads_total\{target="(\w+)",outcome="(\w+)"\} (\d+)$/gm,
  )) {
    out[`${match[1]},${match[2]}`] = Number(match[3]);
  }
  return out;
}

describe('the service with a read replica it cannot use', () => {
  let server: PostgresServer;
  beforeAll(async () => {
    server = await startPostgresServer({ superuserPassword: PASSWORD });
  }, 60_000);
  afterAll(async () => {
    killStartedApps();
    await server?.destroy();
  });

  it('answers every read from the primary, logs why the replica failed, and counts where reads went', async () => {
    const wrong = new URL(server.connectionString);
    wrong.password = WRONG;
    const app = await startListening(APP, {
      API_KEYS: KEY,
      DATABASE_URL: server.connectionString,
      DATABASE_READ_URL: wrong.href,
      LOG_LEVEL: 'info',
    });
    const auth = { authorization: `Bearer ${KEY}` };
    const created = await sendHttp(app.origin, {
      method: 'POST',
      path: '/v1/pets',
      headers: { ...auth, 'content-type': 'application/json' },
      body: '{"name":"Rex","categoryId":1}',
    });
    expect(created.status).toBe(201);
    for (let n = 0; n < 5; n++) {
      const listed = await sendHttp(app.origin, { method: 'GET', path: '/v1/pets', headers: auth });
      expect(listed.status).toBe(200);
      expect(JSON.parse(listed.body)).toHaveLength(1);
    }
    const warning = await app.waitForLog(
      (line) => line.level === 40 && String(line.msg).startsWith('read replica'),
    );
    expect(warning.reason).toMatch(/password authentication failed/);
    // Once, not per read: the next failure within a minute is not logged again.
    expect(
      app.logLines().filter((line) => String(line.msg).startsWith('read replica')),
    ).toHaveLength(1);
    expect(app.output()).not.toContain(WRONG);
    const reads = await readsTotal(app.management as string);
    // The first read tried the replica and went to the primary; the replica then rests, and the
    // next reads go to the primary at once.
    expect(reads['primary_after_wait,failed']).toBeGreaterThanOrEqual(1);
    expect(reads['primary_at_once,resting']).toBeGreaterThanOrEqual(1);
    expect(reads['replica,replica']).toBeUndefined();
    app.signal('SIGTERM');
    expect(await app.exited).toBe(0);
  }, 60_000);
});
