import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { sendHttp } from '@petstore/conformance';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createTestDatabase } from './network.js';
import { killStartedApps, type ListeningApp, startListening } from './process.js';

export interface OperationsSuiteOptions {
  readonly name: string;
  readonly appDir: string;
}

const KEY = 'operations-key-0123456789';

/** Holds `count` silent sockets from 127.0.0.1 open, re-opening each as the app closes it. */
function silentFlood(port: number, count: number): { opened(): number; stop(): void } {
  let opened = 0;
  let stopped = false;
  const sockets = new Set<Socket>();
  const open = (): void => {
    if (stopped) return;
    opened += 1;
    const socket = connect({ host: '127.0.0.1', port, localAddress: '127.0.0.1' });
    sockets.add(socket);
    socket.on('error', () => undefined);
    // Re-opened a little later, so a closed socket never turns into a busy loop.
    socket.once('close', () => {
      sockets.delete(socket);
      setTimeout(open, 100);
    });
  };
  for (let n = 0; n < count; n++) open();
  return {
    opened: () => opened,
    stop() {
      stopped = true;
      for (const socket of sockets) socket.destroy();
    },
  };
}

/** One GET from 127.0.0.2, its own connection; its status, or 0 when it failed. */
const fromSecondAddress = (app: ListeningApp, path: string): Promise<number> =>
  new Promise((resolve) => {
    const { hostname, port } = new URL(app.origin);
    const req = request(
      {
        host: hostname,
        port,
        path,
        localAddress: '127.0.0.2',
        agent: false,
        headers: { authorization: `Bearer ${KEY}` },
        timeout: 5_000,
      },
      (res) => {
        res.resume();
        res.once('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.once('timeout', () => req.destroy());
    req.once('error', () => resolve(0));
    req.end();
  });

/** `count` creates sent at once, each on a connection of its own. */
const createsAtOnce = (origin: string, count: number) =>
  Array.from({ length: count }, (_, n) =>
    sendHttp(origin, {
      method: 'POST',
      path: '/v1/pets',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: `p${n}`, categoryId: 1 }),
    }),
  );

/**
 * The service among other clients and processes: one address cannot take every connection,
 * probes have a port of their own, SIGTERM lets a balancer notice before the listener closes,
 * and the pool is as large as PG_POOL_MAX says.
 */
export function describeOperations({ name, appDir }: OperationsSuiteOptions): void {
  afterAll(killStartedApps);

  describe(`the ${name} example app among other clients`, () => {
    it('400 silent sockets from one address: every probe and every request of another address succeeds', async () => {
      const app = await startListening(appDir, {
        API_KEYS: KEY,
        MAX_CONNECTIONS: '200',
        LOG_LEVEL: 'warn',
      });
      const management = app.management ?? '';
      const flood = silentFlood(Number(new URL(app.origin).port), 400);
      const probes: number[] = [];
      const requests: number[] = [];
      const until = performance.now() + 8_000;
      while (performance.now() < until) {
        const [probe, request] = await Promise.all([
          sendHttp(management, { method: 'GET', path: '/readyz' }).then(
            (res) => res.status,
            () => 0,
          ),
          fromSecondAddress(app, '/v1/pets?limit=1'),
        ]);
        probes.push(probe);
        requests.push(request);
        await sleep(50);
      }
      flood.stop();
      const ok = (list: number[]) => list.filter((status) => status === 200).length;
      console.log(
        `${name} flood: ${flood.opened()} silent sockets opened from 127.0.0.1 (400 at a time, MAX_CONNECTIONS=200); ` +
          `probes ${ok(probes)}/${probes.length} ok, 127.0.0.2 requests ${ok(requests)}/${requests.length} ok`,
      );
      expect(probes.length).toBeGreaterThan(20);
      expect(ok(probes)).toBe(probes.length);
      expect(ok(requests)).toBe(requests.length);
      // The flood was real: the app closed silent sockets and they came back.
      expect(flood.opened()).toBeGreaterThan(400);
      // Past its share each was answered a 503 at once, and counted.
      const scraped = await sendHttp(management, { method: 'GET', path: '/metrics' });
      const refused = /^petstore_connections_refused_total (\d+)$/m.exec(scraped.body)?.[1];
      expect(Number(refused)).toBeGreaterThan(0);
      app.signal('SIGTERM');
      expect(await app.exited).toBe(0);
    }, 40_000);

    it('SHUTDOWN_DELAY_MS: after SIGTERM /readyz is 503 at once while the API still serves, then it stops', async () => {
      const app = await startListening(appDir, { API_KEYS: KEY, SHUTDOWN_DELAY_MS: '1500' });
      const signalled = performance.now();
      app.signal('SIGTERM');
      await app.waitFor(/not ready any more/);
      const ready = await sendHttp(app.origin, { method: 'GET', path: '/readyz' });
      expect([ready.status, JSON.parse(ready.body)]).toEqual([503, { status: 'stopping' }]);
      const probe = await sendHttp(app.management ?? '', { method: 'GET', path: '/readyz' });
      expect(probe.status).toBe(503);
      const api = await sendHttp(app.origin, {
        method: 'GET',
        path: '/v1/pets',
        headers: { authorization: `Bearer ${KEY}` },
      });
      expect(api.status).toBe(200);
      expect(performance.now() - signalled).toBeLessThan(1500);
      expect(await app.exited).toBe(0);
      // The listener closed only after the delay.
      expect(performance.now() - signalled).toBeGreaterThanOrEqual(1500);
    }, 30_000);

    it('on PostgreSQL, graceful by default: at most 4 x PG_POOL_MAX requests in flight, the rest a JSON 503 with Retry-After at once', async () => {
      const db = await createTestDatabase(inject('postgresUrl'));
      const admin = new pg.Client({ connectionString: db.url });
      try {
        const app = await startListening(appDir, {
          API_KEYS: KEY,
          DATABASE_URL: db.url,
          PG_POOL_MAX: '1',
          LOG_LEVEL: 'warn',
        });
        // Creates wait on a lock the test holds: they queue for the pool's one connection.
        await admin.connect();
        await admin.query('BEGIN');
        await admin.query('LOCK TABLE petstore.pets IN ACCESS EXCLUSIVE MODE');
        const creates = createsAtOnce(app.origin, 12);
        const answered: Awaited<(typeof creates)[number]>[] = [];
        for (const create of creates) void create.then((res) => answered.push(res));
        await sleep(1_500);
        // Four hold the places (4 x PG_POOL_MAX=1), waiting on the lock; eight were refused at once.
        expect(answered.map((res) => res.status)).toEqual(Array(8).fill(503));
        for (const res of answered) {
          expect(res.headers['retry-after']).toBe('10');
          expect(JSON.parse(res.body)).toMatchObject({ code: 'service_unavailable' });
        }
        await admin.query('COMMIT');
        const statuses = (await Promise.all(creates)).map((res) => res.status);
        expect(statuses.filter((status) => status === 201)).toHaveLength(4);
        // Each refused by the core, or at accept (a connection that came while the places were
        // full): eight in all.
        const scraped = await sendHttp(app.management ?? '', { method: 'GET', path: '/metrics' });
        const count = (pattern: RegExp) => Number(pattern.exec(scraped.body)?.[1] ?? 0);
        expect(
          count(/^petstore_requests_shed_total\{reason="in_flight"\} (\d+)$/m) +
            count(/^petstore_connections_refused_total (\d+)$/m),
        ).toBe(8);
        app.signal('SIGTERM');
        expect(await app.exited).toBe(0);
      } finally {
        await admin.end();
        await db.drop();
      }
    }, 40_000);

    it('while it sheds load, a new connection is answered the JSON 503 before it sends a byte, and counted', async () => {
      // Over a heap limit of 1 byte: every request is shed.
      const app = await startListening(appDir, {
        API_KEYS: KEY,
        LOAD_SHEDDING_MAX_HEAP_USED_BYTES: '1',
        LOAD_SHEDDING_RETRY_AFTER_SECONDS: '3',
        LOG_LEVEL: 'warn',
      });
      const answer = await new Promise<string>((resolve) => {
        const socket = connect(Number(new URL(app.origin).port), '127.0.0.1');
        let text = '';
        socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
        socket.on('error', () => undefined);
        socket.once('close', () => resolve(text));
        socket.setTimeout(3_000, () => socket.destroy());
      });
      const [head = '', body = ''] = answer.split('\r\n\r\n');
      expect(head).toMatch(/^HTTP\/1\.1 503 /);
      expect(head).toContain('Retry-After: 3');
      expect(JSON.parse(body)).toMatchObject({ code: 'service_unavailable', status: 503 });
      // Probes on the management port are never shed.
      const live = await sendHttp(app.management ?? '', { method: 'GET', path: '/healthz' });
      expect(live.status).toBe(200);
      const scraped = await sendHttp(app.management ?? '', { method: 'GET', path: '/metrics' });
      expect(scraped.body).toMatch(/^petstore_connections_refused_total [1-9]\d*$/m);
      app.signal('SIGTERM');
      expect(await app.exited).toBe(0);
    });

    it('PG_POOL_MAX: the instance opens at most that many PostgreSQL connections', async () => {
      const db = await createTestDatabase(inject('postgresUrl'));
      const admin = new pg.Client({ connectionString: inject('postgresUrl') });
      await admin.connect();
      try {
        const app = await startListening(appDir, {
          API_KEYS: KEY,
          DATABASE_URL: db.url,
          PG_POOL_MAX: '3',
          // The pool alone: 40 creates at once would pass the in-flight limit (4 x 3) by default.
          LOAD_SHEDDING_MAX_IN_FLIGHT: '0',
        });
        const creates = createsAtOnce(app.origin, 40);
        let most = 0;
        const watching = (async () => {
          for (let n = 0; n < 20; n++) {
            const { rows } = await admin.query<{ n: number }>(
              "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'petstore' AND datname = $1",
              [new URL(db.url).pathname.slice(1)],
            );
            most = Math.max(most, rows[0]?.n ?? 0);
            await sleep(10);
          }
        })();
        const statuses = (await Promise.all(creates)).map((res) => res.status);
        await watching;
        expect(statuses.every((status) => status === 201)).toBe(true);
        expect(most).toBeGreaterThan(0);
        expect(most).toBeLessThanOrEqual(3);
        app.signal('SIGTERM');
        expect(await app.exited).toBe(0);
      } finally {
        await admin.end();
        await db.drop();
      }
    }, 40_000);
  });
}
