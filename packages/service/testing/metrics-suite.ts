/// <reference path="./parse-prometheus-text-format.d.ts" />
import { sendHttp } from '@petstore/conformance';
import parsePrometheusTextFormat, { type PrometheusFamily } from 'parse-prometheus-text-format';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createTestDatabase, tcpProxy } from './network.js';
import { killStartedApps, type ListeningApp, startListening } from './process.js';

const KEY = 'metrics-key-0123456789';
const auth = { authorization: `Bearer ${KEY}` };
const json = { 'content-type': 'application/json' };

const DURATION = 'petstore_http_request_duration_seconds';

/**
 * The scrape, parsed twice: as it is, and with the duration histogram's HELP and TYPE lines
 * left out. The parser merges the series of a histogram with labels into one (it keeps only
 * `le`); untyped, each `_count{operation=…}` line stays a sample of its own.
 */
async function scrape(app: ListeningApp): Promise<PrometheusFamily[]> {
  // Scrapes go to the management listener: connections of their own, off the API port.
  const res = await sendHttp(managementOf(app), { method: 'GET', path: '/metrics' });
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  const typed = parsePrometheusTextFormat(res.body);
  const histogramLines = new RegExp(`^# (HELP|TYPE) ${DURATION} .*\n`, 'gm');
  const counts = parsePrometheusTextFormat(res.body.replace(histogramLines, '')).filter(
    (f) => f.name === `${DURATION}_count`,
  );
  return [...typed, ...counts];
}

function managementOf(app: ListeningApp): string {
  if (app.management === undefined) throw new Error('the app started without a management port');
  return app.management;
}

const family = (families: PrometheusFamily[], name: string): PrometheusFamily | undefined =>
  families.find((f) => f.name === name);

/** `{ "labels joined": value }` of one family, for exact comparisons. */
function samples(families: PrometheusFamily[], name: string): Record<string, number> {
  const out: Record<string, number> = {};
  // A name may come back as several families when its lines are not together (untyped).
  for (const sample of families.filter((f) => f.name === name).flatMap((f) => f.metrics)) {
    const key = Object.entries(sample.labels ?? {})
      .map(([label, value]) => `${label}=${value}`)
      .join(',');
    out[key] = Number(sample.value ?? sample.count);
  }
  return out;
}

const get = (app: ListeningApp, path: string, headers: Record<string, string> = auth) =>
  sendHttp(app.origin, { method: 'GET', path, headers });

/**
 * `GET /metrics` of an example app, as a real process: known traffic, then a scrape read with a
 * Prometheus text-format parser, and exact counts. An app's test file calls this once.
 */
export function describeMetrics({ name, appDir }: { name: string; appDir: string }): void {
  afterAll(killStartedApps);

  describe(`the ${name} example app's /metrics`, () => {
    it('counts requests by operation and status, durations, and deprecated calls, exactly', async () => {
      const app = await startListening(appDir, { API_KEYS: KEY, SEED_PETS: '2' });
      const create = (body: string) =>
        sendHttp(app.origin, {
          method: 'POST',
          path: '/v1/pets',
          headers: { ...auth, ...json },
          body,
        });
      const statuses = [
        (await create('{"name":"a","categoryId":1}')).status,
        (await create('{"name":"b","categoryId":1}')).status,
        (await create('{"name":"c","categoryId":1}')).status,
        (await create('{"name":""}')).status,
        (await get(app, '/v1/pets')).status,
        (await get(app, '/v1/pets?limit=1')).status,
        (await get(app, '/v1/pets/1')).status,
        (await get(app, '/v1/pets/2')).status,
        (await get(app, '/v1/pets/999')).status,
        (await get(app, '/v1/pets', { authorization: 'Bearer wrong' })).status,
        (await get(app, '/v1/nothing-here')).status,
        // Outside the API: not counted as API requests.
        (await get(app, '/healthz', {})).status,
        (await get(app, '/readyz', {})).status,
      ];
      expect(statuses).toEqual([201, 201, 201, 400, 200, 200, 200, 200, 404, 401, 404, 200, 200]);

      const families = await scrape(app);
      expect(samples(families, 'petstore_http_requests_total')).toEqual({
        'operation=createPet,status=201': 3,
        'operation=createPet,status=400': 1,
        'operation=listPets,status=200': 2,
        'operation=getPet,status=200': 2,
        'operation=getPet,status=404': 1,
        'operation=none,status=401': 1,
        'operation=none,status=404': 1,
      });
      expect(family(families, DURATION)?.type).toBe('HISTOGRAM');
      expect(samples(families, `${DURATION}_count`)).toEqual({
        'operation=createPet': 4,
        'operation=listPets': 2,
        'operation=getPet': 3,
        'operation=none': 2,
      });
      expect(samples(families, 'petstore_deprecated_calls_total')).toEqual({
        'operation=getPet': 3,
      });
      // Labelled by reason: no sample until a first outage.
      expect(samples(families, 'petstore_storage_unavailable_total')).toEqual({});
      expect(samples(families, 'petstore_storage_up')).toEqual({ '': 1 });
      // prom-client's default process metrics; no pool on the memory storage.
      expect(family(families, 'process_cpu_user_seconds_total')?.type).toBe('COUNTER');
      expect(family(families, 'nodejs_eventloop_lag_seconds')?.type).toBe('GAUGE');
      expect(families.filter((f) => f.name.startsWith('petstore_db_pool'))).toEqual([]);
      // Scraping is not an API request.
      expect(samples(await scrape(app), 'petstore_http_requests_total')).toEqual(
        samples(families, 'petstore_http_requests_total'),
      );
      app.signal('SIGTERM');
      expect(await app.exited).toBe(0);
    }, 40_000);

    it('on PostgreSQL: pool gauges, and 503s from the storage counted as unavailable', async () => {
      const db = await createTestDatabase(inject('postgresUrl'));
      const target = new URL(db.url);
      const proxy = await tcpProxy({ host: target.hostname, port: Number(target.port) });
      try {
        target.host = `127.0.0.1:${proxy.port}`;
        const app = await startListening(appDir, {
          DATABASE_URL: target.toString(),
          API_KEYS: KEY,
        });
        expect((await get(app, '/v1/pets')).status).toBe(200);
        const up = await scrape(app);
        const total = samples(up, 'petstore_db_pool_connections')[''] ?? 0;
        expect(total).toBeGreaterThanOrEqual(1);
        expect(samples(up, 'petstore_db_pool_idle_connections')['']).toBeLessThanOrEqual(total);
        expect(samples(up, 'petstore_db_pool_waiting_clients')).toEqual({ '': 0 });

        await proxy.cut();
        const down = [
          (await get(app, '/v1/pets')).status,
          (await get(app, '/v1/store/orders')).status,
        ];
        expect(down).toEqual([503, 503]);
        const after = await scrape(app);
        // Counted by the outage's reason (the errno or SQLSTATE pg saw through the cut proxy),
        // and the same reason on each 503's log line.
        const reasons = samples(after, 'petstore_storage_unavailable_total');
        expect(Object.values(reasons).reduce((sum, count) => sum + count, 0)).toBe(2);
        for (const label of Object.keys(reasons)) expect(label).toMatch(/^reason=\w+$/);
        const causes = app
          .logLines()
          .filter((line) => line.msg === 'request' && line.status === 503)
          .map((line) => `reason=${String(line.cause)}`);
        expect(causes.sort()).toEqual(
          Object.entries(reasons)
            .flatMap(([label, count]) => Array<string>(count).fill(label))
            .sort(),
        );
        // The outage is reported here and in /readyz's body; the instance stays ready (200).
        // (from a probe at most a second old)
        await expect
          .poll(async () => samples(await scrape(app), 'petstore_storage_up'), { timeout: 5000 })
          .toEqual({ '': 0 });
        const ready = await sendHttp(managementOf(app), { method: 'GET', path: '/readyz' });
        expect([ready.status, JSON.parse(ready.body)]).toEqual([
          200,
          { status: 'ready', storage: 'unavailable' },
        ]);
        expect(samples(after, 'petstore_http_requests_total')).toEqual({
          'operation=listPets,status=200': 1,
          'operation=listPets,status=503': 1,
          'operation=listOrders,status=503': 1,
        });
        app.signal('SIGTERM');
        expect(await app.exited).toBe(0);
      } finally {
        await proxy.close();
        await db.drop();
      }
    }, 40_000);

    const notFound = { code: 'not_found', message: 'No route for /metrics.', status: 404 };

    it('the API port answers /metrics with the 404 unless METRICS_ON_API_PORT=on', async () => {
      const app = await startListening(appDir, { API_KEYS: KEY });
      const res = await get(app, '/metrics', {});
      expect([res.status, JSON.parse(res.body)]).toEqual([404, notFound]);
      // Health checks stay on the API port: a balancer checks the port it sends to.
      expect((await get(app, '/healthz', {})).status).toBe(200);
      expect((await get(app, '/readyz', {})).status).toBe(200);
      app.signal('SIGTERM');
      expect(await app.exited).toBe(0);

      const both = await startListening(appDir, { API_KEYS: KEY, METRICS_ON_API_PORT: 'on' });
      const onApi = await get(both, '/metrics', {});
      expect(onApi.status).toBe(200);
      expect(onApi.body).toContain('petstore_http_requests_total');
      both.signal('SIGTERM');
      expect(await both.exited).toBe(0);
    }, 40_000);

    it('METRICS=off: /metrics is the same 404 as any unknown path, on both ports', async () => {
      const app = await startListening(appDir, { API_KEYS: KEY, METRICS: 'off' });
      for (const origin of [app.origin, managementOf(app)]) {
        const res = await sendHttp(origin, { method: 'GET', path: '/metrics' });
        expect([res.status, JSON.parse(res.body)]).toEqual([404, notFound]);
      }
      app.signal('SIGTERM');
      expect(await app.exited).toBe(0);
    }, 40_000);

    it('MANAGEMENT_PORT=off: no management listener, health checks on the API port', async () => {
      const app = await startListening(appDir, { API_KEYS: KEY, MANAGEMENT_PORT: 'off' });
      expect(app.management).toBeUndefined();
      expect((await get(app, '/readyz', {})).status).toBe(200);
      app.signal('SIGTERM');
      expect(await app.exited).toBe(0);
    }, 40_000);
  });
}
