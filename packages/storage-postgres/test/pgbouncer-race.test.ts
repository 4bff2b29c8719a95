import { randomUUID } from 'node:crypto';
import { sendHttp } from '@petstore/conformance';
import { dropSchema, hostPool, pgbouncerUrl, uniqueSchema } from '@petstore/test-postgres/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../src/index.js';
import { type ServedApi, serveApi } from './support/outage.js';

// Two services (pools of their own) through one PgBouncer in transaction mode: the claim's
// transaction-scoped advisory lock settles the race on the server, whichever server connection
// the pooler hands each transaction. Skipped, and said so once by the global setup, without a
// pgbouncer binary.
const API_KEY = 'bouncer-race-key';
const BURSTS = 5;
const BURST_SIZE = 50;
const MAX_RETRIES = 60;

const bouncer = pgbouncerUrl();
const direct = hostPool();
const schema = uniqueSchema('bouncer_race');
let services: ServedApi[] = [];

describe.skipIf(bouncer === '')('idempotency through PgBouncer', () => {
  beforeAll(async () => {
    await migrate({ connectionString: bouncer, schema });
    services = await Promise.all(
      [0, 1].map(() => serveApi({ connectionString: bouncer, apiKey: API_KEY, schema })),
    );
  });
  afterAll(async () => {
    await Promise.all(services.map((service) => service.close()));
    await dropSchema(direct, schema);
    await direct.end();
  });

  const post = (n: number, key: string, name: string) =>
    sendHttp(services[n % services.length]?.origin ?? '', {
      method: 'POST',
      path: '/v1/pets',
      headers: {
        authorization: `Bearer ${API_KEY}`,
        'content-type': 'application/json',
        'idempotency-key': key,
      },
      body: JSON.stringify({ name, categoryId: 1 }),
    });

  it('50 concurrent requests with one key, split between two services, create one pet', async () => {
    for (let burst = 0; burst < BURSTS; burst += 1) {
      const key = randomUUID();
      const name = `race-${burst}`;
      const answers = await Promise.all(
        Array.from({ length: BURST_SIZE }, (_, n) => post(n, key, name)),
      );
      const created = answers.filter(
        (a) => a.status === 201 && a.headers['idempotent-replayed'] !== 'true',
      );
      expect(created, `burst ${burst}: one request created the pet`).toHaveLength(1);
      const first = created[0]?.body;
      for (const answer of answers) {
        if (answer === created[0]) continue;
        if (answer.status === 201) {
          expect(answer.headers['idempotent-replayed']).toBe('true');
          expect(answer.body).toBe(first);
          continue;
        }
        expect(answer.status).toBe(409);
        // A bounded retry of each 409 replays the same pet.
        let again = answer;
        for (let n = 0; n < MAX_RETRIES && again.status === 409; n += 1) {
          await new Promise((resolve) => setTimeout(resolve, 20));
          again = await post(n, key, name);
        }
        expect(again.headers['idempotent-replayed']).toBe('true');
        expect(again.body).toBe(first);
      }
    }
    const { rows } = await direct.query<{ name: string; pets: string; claims: string }>(
      `SELECT p.name, count(DISTINCT p.id)::text AS pets, count(k.key)::text AS claims
       FROM "${schema}".pets p LEFT JOIN "${schema}".idempotency_keys k ON k.pet_id = p.id
       GROUP BY p.name ORDER BY p.name`,
    );
    expect(rows).toEqual(
      Array.from({ length: BURSTS }, (_, burst) => ({
        name: `race-${burst}`,
        pets: '1',
        claims: '1',
      })),
    );
  }, 60_000);
});
