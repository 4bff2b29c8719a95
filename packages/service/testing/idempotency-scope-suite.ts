import { createHash, createHmac, randomBytes, scrypt } from 'node:crypto';
import { sendHttp, type WireResponse } from '@petstore/conformance';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createTestDatabase } from './network.js';
import { otlpReceiver } from './otlp-receiver.js';
import { killStartedApps, type ListeningApp, startListening } from './process.js';

const SECRET = 'scope-secret-one-0123456789';
const SECRET_2 = 'scope-secret-two-9876543210';
const PLAIN_KEY = 'privacy-plain-key-0123456789';
const OTHER_KEY = 'privacy-other-key-9876543210';
const ID = 'principal-c0ffee';
const ID_KEY = 'privacy-id-key-0123456789abc';

// The two derived forms of a key's scope, as packages/core/src/storage/scope.ts makes them,
// recomputed here so that the search below looks for the very values the service holds.
const sha256 = (key: string): Buffer => createHash('sha256').update(key).digest();
const hmacScope = (key: string, secret: string): Buffer =>
  createHmac('sha256', secret).update(sha256(key).toString('base64url')).digest();
const kdfScope = (key: string): Promise<Buffer> =>
  new Promise((resolve, reject) =>
    scrypt(
      sha256(key),
      'petstore idempotency scope',
      32,
      { N: 2 ** 14, r: 8, p: 1, maxmem: 64 * 1024 * 1024 },
      (error, derived) => (error ? reject(error) : resolve(derived)),
    ),
  );

/** Every form in which a key, or what is derived from it, could be written out: [what, text]. */
async function secretsOf(key: string, name: string): Promise<[string, string][]> {
  const forms: [string, Buffer][] = [
    ['SHA-256', sha256(key)],
    ['HMAC scope (secret one)', hmacScope(key, SECRET)],
    ['HMAC scope (secret two)', hmacScope(key, SECRET_2)],
    ['scrypt scope', await kdfScope(key)],
  ];
  return [
    [`${name}: the key itself`, key],
    ...forms.flatMap(([what, bytes]): [string, string][] => [
      [`${name}: ${what} in hex`, bytes.toString('hex')],
      [`${name}: ${what} in base64`, bytes.toString('base64').replace(/=+$/, '')],
      [`${name}: ${what} in base64url`, bytes.toString('base64url')],
    ]),
  ];
}

/** Samples `pg_stat_activity.query` of one database until stopped (an idle connection shows its last statement). */
async function sampleActivity(url: string): Promise<{ stop(): Promise<string[]> }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const seen = new Set<string>();
  let running = true;
  const sampling = (async () => {
    while (running) {
      const { rows } = await client.query<{ query: string }>(
        `SELECT query FROM pg_stat_activity
         WHERE datname = current_database() AND pid <> pg_backend_pid()`,
      );
      for (const row of rows) seen.add(row.query);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  })();
  return {
    async stop() {
      running = false;
      await sampling;
      // pg_stat_statements too, where the server has it loaded (optional: most test servers do not).
      try {
        const { rows } = await client.query<{ query: string }>(
          'SELECT query FROM pg_stat_statements',
        );
        for (const row of rows) seen.add(row.query);
      } catch {
        // not loaded here
      }
      await client.end();
      return [...seen];
    },
  };
}

const BODY = '{"name":"Rex","categoryId":1}';

function create(
  app: ListeningApp,
  key: string,
  idempotencyKey: string,
  body = BODY,
): Promise<WireResponse> {
  return sendHttp(app.origin, {
    method: 'POST',
    path: '/v1/pets',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      'idempotency-key': idempotencyKey,
    },
    body,
  });
}

async function stop(app: ListeningApp): Promise<void> {
  app.signal('SIGTERM');
  expect(await app.exited).toBe(0);
}

const idOf = (answer: WireResponse): number => (JSON.parse(answer.body) as { id: number }).id;

/**
 * What the service does with a key's Idempotency-Key scope, as a real process on PostgreSQL:
 * no digest of a key leaves it (spans, PostgreSQL's view of its statements, logs), and a
 * scope-secret rotation keeps replays across restarts.
 */
export function describeIdempotencyScopes({
  name,
  appDir,
}: {
  name: string;
  appDir: string;
}): void {
  afterAll(killStartedApps);

  describe(`the ${name} example app's Idempotency-Key scopes`, () => {
    it('no digest of a key, no scope and no Idempotency-Key in exported spans, pg_stat_activity samples or the log', async () => {
      const receiver = await otlpReceiver();
      const db = await createTestDatabase(inject('postgresUrl'));
      const idempotencyKeys: string[] = [];
      const samples = new Set<string>();
      let output = '';
      try {
        // Without a secret (scrypt scopes), then with one and the scrypt form read too (both
        // scopes of each key reach the storage): every key, a create, its replay and a 422.
        for (const [run, env] of [
          ['no secret', {}],
          [
            'secret',
            { IDEMPOTENCY_SCOPE_SECRET: SECRET, IDEMPOTENCY_PREVIOUS_SCOPE_SECRETS: 'none' },
          ],
        ] as const) {
          const app = await startListening(appDir, {
            API_KEYS: `${PLAIN_KEY},${OTHER_KEY},${ID}:${ID_KEY}`,
            DATABASE_URL: db.url,
            LOG_LEVEL: 'trace',
            OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
            OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
            OTEL_SERVICE_NAME: `petstore-${name.toLowerCase()}`,
            OTEL_BSP_SCHEDULE_DELAY: '100',
            ...env,
          });
          const sampler = await sampleActivity(db.url);
          for (const key of [PLAIN_KEY, OTHER_KEY, ID_KEY]) {
            const idempotencyKey = `idem-${randomBytes(12).toString('hex')}`;
            idempotencyKeys.push(idempotencyKey);
            const first = await create(app, key, idempotencyKey);
            expect(first.status, `${run}: create`).toBe(201);
            const again = await create(app, key, idempotencyKey);
            expect([again.status, again.headers['idempotent-replayed']]).toEqual([201, 'true']);
            const other = await create(app, key, idempotencyKey, '{"name":"Max","categoryId":1}');
            expect(other.status).toBe(422);
          }
          for (const query of await sampler.stop()) samples.add(query);
          await stop(app);
          output += app.output();
        }

        const forbidden: [string, string][] = [
          ...(await secretsOf(PLAIN_KEY, 'key without id')),
          ...(await secretsOf(OTHER_KEY, 'second key without id')),
          ...(await secretsOf(ID_KEY, 'key with an id')),
          ['principal id', ID],
          ['scope secret one', SECRET],
          ['scope secret two', SECRET_2],
          ...idempotencyKeys.map((key, n): [string, string] => [`Idempotency-Key ${n + 1}`, key]),
        ];
        const spans = receiver.bodies.join('\n');
        const activity = [...samples].join('\n');
        // The search looked where the statements are: the keyed create's text (either form) was
        // seen in both.
        const keyed = /create_pet_once\(|pg_try_advisory_xact_lock\(/;
        expect(spans).toMatch(keyed);
        expect(activity).toMatch(keyed);
        const leaks = [
          ['exported spans', spans],
          ['pg_stat_activity', activity],
          ['the log (stdout and stderr)', output],
        ].flatMap(([where, text]) =>
          forbidden
            .filter(([, value]) => text?.includes(value))
            .map(([what]) => `${what} in ${where}`),
        );
        console.log(
          `${name} key privacy: ${forbidden.length} values looked for in ${receiver.bodies.length} span exports (${spans.length} characters), ${samples.size} distinct pg_stat_activity statements and ${output.split('\n').length} output lines; ${leaks.length} found`,
        );
        expect(leaks).toEqual([]);
      } finally {
        await receiver.close();
        await db.drop();
      }
    }, 60_000);

    it('a scope-secret rotation keeps replays across restarts: none → S (previous none) → S2 (previous S); without the previous list a new pet', async () => {
      const db = await createTestDatabase(inject('postgresUrl'));
      const start = (env: Record<string, string>) =>
        startListening(appDir, { API_KEYS: PLAIN_KEY, DATABASE_URL: db.url, ...env });
      const replays = (answer: WireResponse, id: number) =>
        expect([answer.status, answer.headers['idempotent-replayed'], idOf(answer)]).toEqual([
          201,
          'true',
          id,
        ]);
      const isNew = (answer: WireResponse, not: number) => {
        expect([answer.status, answer.headers['idempotent-replayed']]).toEqual([201, undefined]);
        expect(idOf(answer)).not.toBe(not);
      };
      try {
        // No secret: the claim is written under the scrypt scope.
        let app = await start({});
        const first = await create(app, PLAIN_KEY, 'rotate-1');
        expect([first.status, first.headers['idempotent-replayed']]).toEqual([201, undefined]);
        await stop(app);

        // Secret S, the earlier setup had none: the scrypt-scope claim replays.
        app = await start({
          IDEMPOTENCY_SCOPE_SECRET: SECRET,
          IDEMPOTENCY_PREVIOUS_SCOPE_SECRETS: 'none',
        });
        replays(await create(app, PLAIN_KEY, 'rotate-1'), idOf(first));
        const second = await create(app, PLAIN_KEY, 'rotate-2'); // written under S
        expect(second.headers['idempotent-replayed']).toBeUndefined();
        await stop(app);

        // Secret S2, S previous: the claim written under S replays.
        app = await start({
          IDEMPOTENCY_SCOPE_SECRET: SECRET_2,
          IDEMPOTENCY_PREVIOUS_SCOPE_SECRETS: SECRET,
        });
        replays(await create(app, PLAIN_KEY, 'rotate-2'), idOf(second));
        await stop(app);

        // S2 alone, as after a rotation that forgot the previous list: both claims are out of
        // sight and the same key and body make a second pet (what the list above prevents).
        app = await start({ IDEMPOTENCY_SCOPE_SECRET: SECRET_2 });
        isNew(await create(app, PLAIN_KEY, 'rotate-2'), idOf(second));
        isNew(await create(app, PLAIN_KEY, 'rotate-1'), idOf(first));
        await stop(app);
      } finally {
        await db.drop();
      }
    }, 60_000);
  });
}
