import { createApiReference } from '@petstore/api-reference';
import { type PetStorage, StorageUnavailableError } from '@petstore/core';
import { createMemoryStorage } from '@petstore/storage-memory';
import { describe, expect, it } from 'vitest';
import { createHostRoutes, hostRouteTable } from '../src/host-routes.js';
import { createMetrics } from '../src/metrics.js';
import { capturedLogger } from './captured-logger.js';

/** The memory storage with `listPets` replaced: the probe is all these tests exercise. */
const storageWhoseListPets = (listPets: PetStorage['listPets']): PetStorage => ({
  ...createMemoryStorage(),
  listPets,
});

const notStopping = () => false;

describe('host routes', () => {
  it('answers live with 200 and the client request id, logged at debug', () => {
    const { logger, lines } = capturedLogger();
    const host = createHostRoutes({
      storage: createMemoryStorage(),
      logger,
      stopping: notStopping,
    });
    const answer = host.live('abc-123');
    expect(answer).toEqual({
      status: 200,
      headers: {
        'content-type': 'application/json; charset=utf-8',
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
        'x-request-id': 'abc-123',
      },
      body: '{"status":"ok"}',
    });
    expect(lines).toMatchObject([
      { level: 20, msg: 'request', route: '/healthz', status: 200, requestId: 'abc-123' },
    ]);
  });

  it('replaces a request id that is not 1 to 128 visible ASCII characters', () => {
    const { logger } = capturedLogger();
    const host = createHostRoutes({
      storage: createMemoryStorage(),
      logger,
      stopping: notStopping,
    });
    for (const sent of ['has space', 'x'.repeat(129), '', ['a', 'b'], undefined]) {
      expect(host.live(sent).headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    }
    expect(host.live('x'.repeat(128)).headers['x-request-id']).toBe('x'.repeat(128));
  });

  it('is ready when the storage answers a one-row page', async () => {
    const { logger } = capturedLogger();
    const asked: unknown[] = [];
    const storage = storageWhoseListPets(async (query) => {
      asked.push(query);
      return [];
    });
    const host = createHostRoutes({ storage, logger, stopping: notStopping });
    const answer = await host.ready(undefined);
    expect([answer.status, answer.body]).toEqual([200, '{"status":"ready","storage":"ok"}']);
    expect(asked).toEqual([{ limit: 1 }]);
  });

  it('stays ready (200) while the shared storage is down, saying so in its body and at warn', async () => {
    const { logger, lines } = capturedLogger();
    const storage = storageWhoseListPets(() =>
      Promise.reject(new StorageUnavailableError('connect ECONNREFUSED 127.0.0.1:5432')),
    );
    const host = createHostRoutes({ storage, logger, stopping: notStopping });
    const answer = await host.ready('r-0');
    expect([answer.status, answer.body]).toEqual([
      200,
      '{"status":"ready","storage":"unavailable"}',
    ]);
    expect(lines).toMatchObject([
      { level: 30, route: '/readyz', status: 200, reason: 'connect ECONNREFUSED 127.0.0.1:5432' },
    ]);
  });

  it('with readyRequiresStorage, is not ready (503) while the storage is unavailable, logged at warn', async () => {
    const { logger, lines } = capturedLogger();
    const storage = storageWhoseListPets(() =>
      Promise.reject(new StorageUnavailableError('connect ECONNREFUSED 127.0.0.1:5432')),
    );
    const host = createHostRoutes({
      storage,
      logger,
      stopping: notStopping,
      readyRequiresStorage: true,
    });
    const answer = await host.ready('r-1');
    expect([answer.status, answer.body]).toEqual([
      503,
      '{"status":"unavailable","storage":"unavailable"}',
    ]);
    expect(lines).toMatchObject([
      {
        level: 40,
        route: '/readyz',
        status: 503,
        requestId: 'r-1',
        reason: 'connect ECONNREFUSED 127.0.0.1:5432',
      },
    ]);
  });

  it('is not ready when the storage does not answer in time, and does not wait longer', async () => {
    const { logger, lines } = capturedLogger();
    const storage = storageWhoseListPets(() => new Promise(() => undefined));
    const host = createHostRoutes({
      storage,
      logger,
      stopping: notStopping,
      timeoutMs: 50,
      readyRequiresStorage: true,
    });
    const started = performance.now();
    const answer = await host.ready(undefined);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(answer.status).toBe(503);
    expect(lines[0]).toMatchObject({ reason: 'no answer within 50 ms' });
  });

  for (const readyRequiresStorage of [false, true]) {
    const expected = readyRequiresStorage ? 503 : 200;
    it(`answers ${expected} within answerWithinMs while a probe hangs longer (readyRequiresStorage ${readyRequiresStorage})`, async () => {
      const { logger } = capturedLogger();
      // A storage whose packets are dropped: the probe holds until its own timeout.
      const storage = storageWhoseListPets(() => new Promise(() => undefined));
      const host = createHostRoutes({
        storage,
        logger,
        stopping: notStopping,
        timeoutMs: 5_000,
        answerWithinMs: 100,
        readyRequiresStorage,
      });
      for (let n = 0; n < 3; n++) {
        const started = performance.now();
        const answer = await host.ready(undefined);
        expect(performance.now() - started).toBeLessThan(400);
        expect(answer.status).toBe(expected);
        expect(JSON.parse(answer.body)).toMatchObject({ storage: 'unavailable' });
      }
    });
  }

  it('reports a storage bug (not an outage) at error with its stack, and is not ready', async () => {
    const { logger, lines } = capturedLogger();
    const storage = storageWhoseListPets(() => Promise.reject(new TypeError('bug in storage')));
    const host = createHostRoutes({
      storage,
      logger,
      stopping: notStopping,
      readyRequiresStorage: true,
    });
    expect((await host.ready(undefined)).status).toBe(503);
    expect(lines[0]).toMatchObject({
      level: 50,
      msg: 'readiness probe failed',
      err: {
        type: 'TypeError',
        message: 'bug in storage',
        stack: expect.stringContaining('TypeError'),
      },
    });
  });

  it('is not ready once shutdown began, without asking the storage', async () => {
    const { logger } = capturedLogger();
    let asked = 0;
    const storage = storageWhoseListPets(async () => {
      asked += 1;
      return [];
    });
    const host = createHostRoutes({ storage, logger, stopping: () => true });
    const answer = await host.ready(undefined);
    expect([answer.status, answer.body, asked]).toEqual([503, '{"status":"stopping"}', 0]);
  });

  it("answers other paths with the core's 404 body, logged at info without the path", () => {
    const { logger, lines } = capturedLogger('info');
    const host = createHostRoutes({
      storage: createMemoryStorage(),
      logger,
      stopping: notStopping,
    });
    const answer = host.notFound('DELETE', '/nothing/"here"', 'nf-1');
    expect(answer.status).toBe(404);
    expect(JSON.parse(answer.body)).toEqual({
      code: 'not_found',
      message: 'No route for /nothing/"here".',
      status: 404,
    });
    expect(answer.headers['x-request-id']).toBe('nf-1');
    expect(lines).toMatchObject([{ level: 30, method: 'DELETE', status: 404, requestId: 'nf-1' }]);
    expect(JSON.stringify(lines)).not.toContain('nothing');
  });

  it('answers a flood of readiness probes from results at most readyCacheMs old: a bounded number of queries', async () => {
    const { logger } = capturedLogger();
    let queries = 0;
    let failing = false;
    const storage = storageWhoseListPets(async () => {
      queries += 1;
      await new Promise((resolve) => setTimeout(resolve, 20));
      if (failing) throw new StorageUnavailableError('gone');
      return [];
    });
    const host = createHostRoutes({
      storage,
      logger,
      stopping: notStopping,
      readyCacheMs: 300,
      readyRequiresStorage: true,
    });
    // 200 at once share one query.
    const burst = await Promise.all(Array.from({ length: 200 }, () => host.ready(undefined)));
    expect(burst.every((answer) => answer.status === 200)).toBe(true);
    expect(queries).toBe(1);
    // Then probes back to back for about 1 s: one query per 300 ms window at most.
    const started = performance.now();
    let probes = 0;
    while (performance.now() - started < 1000) {
      await host.ready(undefined);
      probes += 1;
    }
    expect(probes).toBeGreaterThan(50);
    expect(queries).toBeGreaterThanOrEqual(2);
    expect(queries).toBeLessThanOrEqual(1 + Math.ceil((performance.now() - started) / 300));
    // A change shows within the window: never an answer older than readyCacheMs.
    failing = true;
    await new Promise((resolve) => setTimeout(resolve, 320));
    expect((await host.ready(undefined)).status).toBe(503);
  });

  it('serves /metrics only when given metrics; otherwise it is the 404', async () => {
    const { logger } = capturedLogger();
    const off = createHostRoutes({ storage: createMemoryStorage(), logger, stopping: notStopping });
    expect((await off.metrics('m-1')).status).toBe(404);
    const on = createHostRoutes({
      storage: createMemoryStorage(),
      logger,
      stopping: notStopping,
      metrics: createMetrics(),
    });
    const answer = await on.metrics('m-2');
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(answer.headers['x-request-id']).toBe('m-2');
    expect(answer.body).toContain('# TYPE petstore_http_requests_total counter');
  });

  it('serves /docs and its scripts from @petstore/api-reference, each answer with its request id and a log line', async () => {
    const { logger, lines } = capturedLogger();
    const host = createHostRoutes({
      storage: createMemoryStorage(),
      logger,
      stopping: notStopping,
    });
    const docs = createApiReference({ publicPath: '/v1' });
    const table = hostRouteTable(host, docs, logger, false);
    // /metrics belongs on the management port unless METRICS_ON_API_PORT=on.
    const bundlePath = `/docs${docs.paths[1]}`;
    expect(table.map((route) => route.path)).toEqual([
      '/healthz',
      '/readyz',
      '/docs',
      bundlePath,
      `/docs${docs.paths[2]}`,
    ]);
    const bundle = table.find((route) => route.path === bundlePath);
    const headers = { 'x-request-id': 'docs-1', 'accept-encoding': 'br' };
    const answer = await bundle?.answer({ method: 'GET', path: bundlePath, headers });
    // What the reference answers where it is mounted, with the request id.
    const direct = await docs.handle({
      method: 'GET',
      path: docs.paths[1] ?? '',
      headers,
      publicPath: '/docs',
    });
    expect(answer?.status).toBe(200);
    expect(answer?.headers).toEqual({ ...direct.headers, 'x-request-id': 'docs-1' });
    expect(answer?.body).toBe(direct.body);
    expect(lines).toMatchObject([
      {
        level: 30,
        msg: 'request',
        method: 'GET',
        route: bundlePath,
        status: 200,
        requestId: 'docs-1',
      },
    ]);
    const page = await table
      .find((route) => route.path === '/docs')
      ?.answer({
        method: 'GET',
        path: '/docs',
        headers: {},
      });
    expect(Buffer.from(page?.body ?? '').toString()).toContain(`<script src="${bundlePath}">`);
    expect(hostRouteTable(host, undefined, logger, true).map((route) => route.path)).toEqual([
      '/healthz',
      '/readyz',
      '/metrics',
    ]);
  });
});
