import { setTimeout as sleep } from 'node:timers/promises';
import { rawRequest, sendHttp } from '@petstore/conformance';
import { afterAll, describe, expect, it } from 'vitest';
import { fuzzRequests, runFuzz } from './fuzz.js';
import { HOSTILE_REQUESTS } from './hostile.js';
import { killStartedApps, type LogLine, startListening } from './process.js';

export interface HostileSuiteOptions {
  /** For test titles: `Express`, `Hapi`. */
  readonly name: string;
  /** The app's directory (where `src/main.ts` is). */
  readonly appDir: string;
}

/**
 * Answers sent before a 2 MB body is read, per case: each must reach Node's `fetch` (the
 * connection closes lingering; closed at once, the kernel reset it and fetch said EPIPE).
 */
const EARLY_ROUNDS = 20;
const EARLY_BODY = JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024), categoryId: 1 });

/** Requests the in-suite fuzz run sends to each app; `pnpm fuzz` sends more. */
export const SUITE_FUZZ_COUNT = 2000;
const FUZZ_SEED = 20_261_123;

const portOf = (origin: string): number => Number(new URL(origin).port);
const requestLines = (lines: LogLine[], requestId: string): LogLine[] =>
  lines.filter((line) => line.msg === 'request' && line.requestId === requestId);

/** A create through the API, to show the app still serves after whatever came before. */
async function createWorks(origin: string, key: string): Promise<void> {
  const created = await sendHttp(origin, {
    method: 'POST',
    path: '/v1/pets',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: '{"name":"Still","categoryId":1}',
  });
  expect(created.status).toBe(201);
}

/**
 * What no client may do to either app: crash it, get an answer that is not the Error
 * body, or hold a connection past the configured limits. Run against one app as a real process.
 */
export function describeHostileTraffic({ name, appDir }: HostileSuiteOptions): void {
  afterAll(killStartedApps);

  describe(`the ${name} example app under hostile traffic`, () => {
    it('answers each crash request and parser-refused request with the Error body, logs it, and still serves', async () => {
      const app = await startListening(appDir, { API_KEYS: 'hostile-key-0123456789' });
      const port = portOf(app.origin);
      for (const hostile of HOSTILE_REQUESTS) {
        const answer = await rawRequest(port, hostile.bytes);
        const seen = `${hostile.name}: ${answer.raw.slice(0, 300)}`;
        expect(answer.status, seen).toBe(hostile.status);
        expect(answer.headers['content-type'], seen).toBe('application/json; charset=utf-8');
        const requestId = answer.headers['x-request-id'];
        expect(requestId, seen).toMatch(/^[0-9a-f-]{36}$/);
        if (hostile.code !== undefined) {
          expect(JSON.parse(answer.body), seen).toEqual({
            code: hostile.code,
            message: expect.any(String),
            status: hostile.status,
          });
        }
        if (hostile.closes) expect(answer.headers.connection, seen).toBe('close');
        // Health checks log at debug; everything else one info line with the same id.
        if (hostile.status !== 200) {
          await app.waitForLog((line) => line.requestId === requestId);
          expect(requestLines(app.logLines(), requestId ?? ''), seen).toHaveLength(1);
        }
      }
      await createWorks(app.origin, 'hostile-key-0123456789');
      expect(app.child.exitCode).toBeNull();
      app.signal('SIGTERM');
      expect(await app.exited).toBe(0);
    });

    it(`survives ${SUITE_FUZZ_COUNT} seeded fuzz requests: no crash, no 5xx, the Error body or a documented success, one log line each`, async () => {
      const app = await startListening(appDir, {
        API_KEYS: 'fuzz-key-1-0123456789',
        LOG_LEVEL: 'debug',
      });
      const requests = fuzzRequests('fuzz-key-1-0123456789', SUITE_FUZZ_COUNT, FUZZ_SEED);
      const result = await runFuzz(portOf(app.origin), requests);
      expect(result.failures).toEqual([]);
      expect(Object.values(result.counts).reduce((sum, count) => sum + count, 0)).toBe(
        SUITE_FUZZ_COUNT,
      );
      // More than one kind of answer, or the run tested little.
      expect(Object.keys(result.counts).length).toBeGreaterThanOrEqual(5);
      await createWorks(app.origin, 'fuzz-key-1-0123456789');
      // One request line per answer: as many lines with each id as answers that carried it
      // (LOG_LEVEL=debug, so passing health checks count too).
      const tally = (ids: Iterable<string>): Map<string, number> => {
        const counts = new Map<string, number>();
        for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1);
        return counts;
      };
      const logged = tally(
        app
          .logLines()
          .filter((line) => line.msg === 'request' && typeof line.requestId === 'string')
          .map((line) => String(line.requestId)),
      );
      const mismatched = [...tally(result.requestIds)].filter(
        ([id, answers]) => logged.get(id) !== answers,
      );
      expect(mismatched.slice(0, 5)).toEqual([]);
      expect(app.child.exitCode).toBeNull();
      app.signal('SIGTERM');
      expect(await app.exited).toBe(0);
    }, 120_000);

    it('closes connections that dribble headers or a body within the configured timeouts, while /healthz keeps answering', async () => {
      const app = await startListening(appDir, {
        API_KEYS: 'slow-key-0123456789',
        HEADERS_TIMEOUT_MS: '1000',
        REQUEST_TIMEOUT_MS: '2000',
        KEEP_ALIVE_TIMEOUT_MS: '500',
      });
      const port = portOf(app.origin);
      const drip = (count: number, bytes: string) =>
        Array.from({ length: count }, () => ({ afterMs: 300, bytes }));
      const started = Date.now();
      const slowHeaders = rawRequest(port, 'GET /healthz HTTP/1.1\r\nHost: t\r\n', {
        waitMs: 15_000,
        untilClose: true,
        dribble: drip(40, 'X-Drip: 1\r\n'),
      });
      const slowBody = rawRequest(
        port,
        'POST /v1/pets HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer slow-key-0123456789\r\nX-Request-Id: slow-body-1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{',
        { waitMs: 15_000, untilClose: true, dribble: drip(40, ' ') },
      );
      await sleep(500);
      const live = await sendHttp(app.origin, { method: 'GET', path: '/healthz' });
      expect(live.status).toBe(200);

      const headersCut = await slowHeaders;
      expect(headersCut.closed).toBe(true);
      expect(headersCut.status).toBe(408);
      expect(JSON.parse(headersCut.body)).toMatchObject({ code: 'request_timeout', status: 408 });
      const bodyCut = await slowBody;
      expect(bodyCut.closed).toBe(true);
      expect(bodyCut.status).toBe(408);
      expect(bodyCut.headers['x-request-id']).toBe('slow-body-1');
      // One line for the one answer: not also the core's report of the body it could not read.
      await app.waitForLog((line) => line.requestId === 'slow-body-1' && line.status === 408);
      await sleep(300);
      expect(app.logLines().filter((line) => line.requestId === 'slow-body-1')).toMatchObject([
        { msg: 'request', status: 408, reason: 'ERR_HTTP_REQUEST_TIMEOUT' },
      ]);
      // 40 drips would take 12 s; the limits (plus Node's check interval) cut them far sooner.
      expect(Date.now() - started).toBeLessThan(8_000);

      // An idle keep-alive connection goes after KEEP_ALIVE_TIMEOUT_MS (Node's default is 5 s).
      const idleSince = Date.now();
      const idle = await rawRequest(port, 'GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n', {
        waitMs: 4_000,
        untilClose: true,
      });
      expect([idle.closed, idle.raw.split(' ')[1]]).toEqual([true, '200']);
      expect(Date.now() - idleSince).toBeLessThan(3_000);
      const again = await sendHttp(app.origin, { method: 'GET', path: '/healthz' });
      expect(again.status).toBe(200);
      await createWorks(app.origin, 'slow-key-0123456789');
      app.signal('SIGTERM');
      expect(await app.exited).toBe(0);
    }, 40_000);

    it('closes connections past MAX_CONNECTIONS as they come', async () => {
      const app = await startListening(appDir, { MAX_CONNECTIONS: '2' });
      const port = portOf(app.origin);
      const first = rawRequest(port, '', { waitMs: 10_000 });
      const second = rawRequest(port, '', { waitMs: 10_000 });
      await sleep(300);
      const third = await rawRequest(port, 'GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n', {
        waitMs: 3_000,
      });
      expect([third.closed, third.status]).toEqual([true, undefined]);
      app.signal('SIGTERM');
      expect(await app.exited).toBe(0);
      expect([(await first).closed, (await second).closed]).toEqual([true, true]);
    });

    it('closes idle keep-alive connections at once on shutdown, even one that never sent a request', async () => {
      const app = await startListening(appDir, { SHUTDOWN_TIMEOUT_MS: '60000' });
      const port = portOf(app.origin);
      // One connection that sent nothing, one kept alive after an answer: neither is waited for.
      const silent = rawRequest(port, '', { waitMs: 30_000 });
      const keptAlive = await rawRequest(port, 'GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n', {
        waitMs: 500,
      });
      expect(keptAlive.status).toBe(200);
      await sleep(200);
      const signalled = Date.now();
      app.signal('SIGTERM');
      expect(await app.exited).toBe(0);
      expect(Date.now() - signalled).toBeLessThan(5_000);
      expect((await silent).closed).toBe(true);
    }, 40_000);

    it(`gives Node's fetch every answer sent before a 2 MB body is read: ${EARLY_ROUNDS} each of 413, 401, 415, a host route's and the management port's`, async () => {
      const key = 'early-key-0123456789';
      const app = await startListening(appDir, { API_KEYS: key, LOG_LEVEL: 'warn' });
      const json = { 'content-type': 'application/json' };
      const cases = [
        ['413', `${app.url}/pets`, { ...json, authorization: `Bearer ${key}` }],
        ['401', `${app.url}/pets`, json],
        [
          '415',
          `${app.url}/pets`,
          { authorization: `Bearer ${key}`, 'content-type': 'text/plain' },
        ],
        // Host routes answer without reading a body: 404 for a POST to /healthz.
        ['404', `${app.origin}/healthz`, json],
        ['404', `${app.management}/readyz`, json],
      ] as const;
      for (const [expected, url, headers] of cases) {
        const seen: string[] = [];
        for (let n = 0; n < EARLY_ROUNDS; n++) {
          seen.push(
            await fetch(url, { method: 'POST', headers, body: EARLY_BODY }).then(
              async (res) => {
                await res.arrayBuffer();
                return String(res.status);
              },
              (error: Error & { cause?: { code?: string } }) => error.cause?.code ?? error.message,
            ),
          );
        }
        expect(seen, `${expected} from ${url}`).toEqual(seen.map(() => expected));
      }
      app.signal('SIGTERM');
      expect(await app.exited).toBe(0);
    }, 60_000);

    it('lists PRODUCTION_BASE_URL and STAGING_BASE_URL as the document servers', async () => {
      const app = await startListening(appDir, {
        PRODUCTION_BASE_URL: 'https://api.example.com/v1',
        STAGING_BASE_URL: 'https://staging.example.com/v1',
      });
      const document = await sendHttp(app.origin, { method: 'GET', path: '/v1/openapi.json' });
      expect(JSON.parse(document.body).servers).toEqual([
        { url: 'https://api.example.com/v1', description: 'Production' },
        { url: 'https://staging.example.com/v1', description: 'Staging' },
      ]);
      app.signal('SIGTERM');
      expect(await app.exited).toBe(0);
    });
  });
}
