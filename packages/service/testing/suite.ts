import { setTimeout as sleep } from 'node:timers/promises';
import { sendHttp } from '@petstore/conformance';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { RELAYED_SIGNAL_WINDOW_MS } from '../src/shutdown.js';
import { createTestDatabase, refusedPort, tcpProxy } from './network.js';
import {
  halfSentPost,
  killStartedApps,
  type LogLine,
  startApp,
  startListening,
} from './process.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** PostgreSQL server for tests (tools/test-postgres/src/global-setup.ts). */
    postgresUrl: string;
  }
}

export interface ExampleAppSuiteOptions {
  /** For test titles: `Express`, `Hapi`. */
  readonly name: string;
  /** The app's directory (where `src/main.ts` is). */
  readonly appDir: string;
}

const json = { 'content-type': 'application/json' };
const names = (body: string): string[] =>
  (JSON.parse(body) as Array<{ name: string }>).map((pet) => pet.name);
const isRequest =
  (fields: Readonly<Record<string, unknown>>) =>
  (line: LogLine): boolean =>
    line.msg === 'request' && Object.entries(fields).every(([name, value]) => line[name] === value);

/**
 * The behaviour both example apps share, run against one of them as a real process: the API,
 * the request log, health checks, graceful shutdown, and PostgreSQL (from the vitest
 * globalSetup's `postgresUrl`). An app's test file calls this once.
 */
export function describeExampleApp({ name, appDir }: ExampleAppSuiteOptions): void {
  afterAll(killStartedApps);

  describe(`the ${name} example app as a process`, () => {
    it('serves the API with a generated key, and logs one JSON line per request without keys', async () => {
      const app = await startListening(appDir, { SEED_PETS: '2' });
      expect(app.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
      expect(app.output()).toContain('API key (generated, shown once');
      const auth = { authorization: `Bearer ${app.key}` };

      const created = await sendHttp(app.origin, {
        method: 'POST',
        path: '/v1/pets',
        headers: { ...auth, ...json, 'x-request-id': 'create-nemo-1' },
        body: '{"name":"Nemo","categoryId":2}',
      });
      expect([created.status, created.headers.location]).toEqual([201, '/v1/pets/3']);
      expect(created.headers['x-request-id']).toBe('create-nemo-1');
      const listed = await sendHttp(app.origin, { method: 'GET', path: '/v1/pets', headers: auth });
      expect(names(listed.body)).toEqual(['Rex 1', 'Tom 2', 'Nemo']);
      const refused = await sendHttp(app.origin, {
        method: 'GET',
        path: '/v1/pets',
        headers: { authorization: 'Bearer wrong-key-4f1c', 'x-request-id': 'bad-key-1' },
      });
      expect(refused.status).toBe(401);
      const old = await sendHttp(app.origin, {
        method: 'GET',
        path: '/v1/pets/1',
        headers: { ...auth, 'x-request-id': 'old-get-1' },
      });
      expect(old.status).toBe(200);

      const createLine = await app.waitForLog(isRequest({ requestId: 'create-nemo-1' }));
      expect(createLine).toMatchObject({
        level: 30,
        method: 'POST',
        route: '/pets',
        operationId: 'createPet',
        status: 201,
      });
      expect(createLine.durationMs).toEqual(expect.any(Number));
      const listLine = await app.waitForLog(
        isRequest({ requestId: listed.headers['x-request-id'] }),
      );
      expect(listLine).toMatchObject({ method: 'GET', route: '/pets', status: 200 });
      expect(await app.waitForLog(isRequest({ requestId: 'bad-key-1' }))).toMatchObject({
        status: 401,
      });
      expect(
        await app.waitForLog((line) => line.msg === 'deprecated operation called'),
      ).toMatchObject({ level: 40, operationId: 'getPet', requestId: 'old-get-1' });
      expect(await app.waitForLog(isRequest({ requestId: 'old-get-1' }))).toMatchObject({
        route: '/pets/{petId}',
        status: 200,
      });

      // The key shows in the banner (key line and curl hint), and nowhere in the log.
      expect(app.output().split(app.key).length - 1).toBe(2);
      const log = app.logLines().map((line) => JSON.stringify(line));
      expect(log.length).toBeGreaterThanOrEqual(5);
      for (const line of log) {
        expect(line).not.toContain(app.key);
        expect(line).not.toContain('wrong-key-4f1c');
        expect(line).not.toMatch(/authorization|bearer/i);
      }
      app.signal('SIGTERM');
      expect(await app.exited).toBe(0);
    });

    it('answers /healthz and /readyz without auth (logged at debug), and other paths with a JSON 404', async () => {
      const app = await startListening(appDir, { LOG_LEVEL: 'debug' });
      const live = await sendHttp(app.origin, {
        method: 'GET',
        path: '/healthz',
        headers: { 'x-request-id': 'probe-live-1' },
      });
      expect([live.status, live.body]).toEqual([200, '{"status":"ok"}']);
      expect(live.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(live.headers['x-request-id']).toBe('probe-live-1');
      expect(live.headers['cache-control']).toBe('no-store');
      const ready = await sendHttp(app.origin, { method: 'GET', path: '/readyz' });
      expect([ready.status, ready.body]).toEqual([200, '{"status":"ready","storage":"ok"}']);
      expect(ready.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      expect(await app.waitForLog(isRequest({ requestId: 'probe-live-1' }))).toMatchObject({
        level: 20,
        method: 'GET',
        route: '/healthz',
        status: 200,
      });
      await app.waitForLog(
        isRequest({ route: '/readyz', requestId: ready.headers['x-request-id'] }),
      );
      const elsewhere = await sendHttp(app.origin, {
        method: 'POST',
        path: '/nowhere',
        headers: { 'x-request-id': 'lost-1' },
      });
      expect(elsewhere.status).toBe(404);
      expect(JSON.parse(elsewhere.body)).toMatchObject({ code: 'not_found', status: 404 });
      expect(elsewhere.headers['x-request-id']).toBe('lost-1');
      expect(await app.waitForLog(isRequest({ requestId: 'lost-1' }))).toMatchObject({
        level: 30,
        method: 'POST',
        status: 404,
      });
      app.signal('SIGTERM');
      expect(await app.exited).toBe(0);
    });

    it('finishes a request in flight on SIGTERM, refuses new connections, and exits 0', async () => {
      const app = await startListening(appDir, {});
      const late = halfSentPost(
        `${app.url}/pets`,
        { authorization: `Bearer ${app.key}` },
        '{"name":"Late",',
      );
      await sleep(200);
      app.signal('SIGTERM');
      await app.waitFor(/SIGTERM: no new connections/);
      await expect(sendHttp(app.origin, { method: 'GET', path: '/healthz' })).rejects.toThrow(
        /ECONNREFUSED/,
      );
      late.finish('"categoryId":1}');
      const answer = await late.answer;
      expect(answer.status).toBe(201);
      expect(JSON.parse(answer.body)).toMatchObject({ id: 1, name: 'Late' });
      expect(await app.exited).toBe(0);
      expect(app.logLines().at(-1)).toMatchObject({ msg: 'stopped' });
    });

    it('uses API_KEYS without printing or logging them, and stops on SIGINT', async () => {
      const app = await startListening(appDir, {
        API_KEYS: 'first-key-0123456789,ops:second-key-0123456789',
      });
      expect(app.output()).toContain('API keys: 2 from API_KEYS');
      const ok = await sendHttp(app.origin, {
        method: 'GET',
        path: '/v1/pets',
        headers: { authorization: 'Bearer second-key-0123456789' },
      });
      expect([ok.status, ok.body]).toEqual([200, '[]']);
      await app.waitForLog(isRequest({ requestId: ok.headers['x-request-id'] }));
      app.signal('SIGINT');
      expect(await app.exited).toBe(0);
      expect(app.output()).toContain('SIGINT: no new connections');
      expect(app.output()).not.toMatch(/first-key|second-key/);
    });

    it('cuts a request that never finishes after SHUTDOWN_TIMEOUT_MS, and still exits 0', async () => {
      const app = await startListening(appDir, { SHUTDOWN_TIMEOUT_MS: '300' });
      const stuck = halfSentPost(`${app.url}/pets`, { authorization: `Bearer ${app.key}` }, '{');
      await sleep(200);
      const signalled = Date.now();
      app.signal('SIGTERM');
      expect(await app.exited).toBe(0);
      expect(Date.now() - signalled).toBeLessThan(5_000);
      expect(await stuck.failed).toMatch(/ECONNRESET|EPIPE/);
    });

    it('exits 1 at once on a second signal, once past the window for relayed copies', async () => {
      const app = await startListening(appDir, { SHUTDOWN_TIMEOUT_MS: '60000' });
      const stuck = halfSentPost(`${app.url}/pets`, { authorization: `Bearer ${app.key}` }, '{');
      await sleep(200);
      app.signal('SIGTERM');
      await app.waitFor(/SIGTERM: no new connections/);
      // Sooner, it would be taken for a copy of the first relayed by a wrapper.
      await sleep(RELAYED_SIGNAL_WINDOW_MS + 200);
      const signalled = Date.now();
      app.signal('SIGINT');
      expect(await app.exited).toBe(1);
      expect(Date.now() - signalled).toBeLessThan(5_000);
      expect(app.output()).toContain('SIGINT again: exiting now');
      await stuck.failed;
    });

    it('refuses bad configuration with a clear message and exit code 1', async () => {
      const app = startApp(appDir, { PORT: 'abc', LOG_LEVEL: 'loud' });
      expect(await app.exited).toBe(1);
      expect(app.output()).toContain('config: PORT must be an integer from 0 to 65535, got "abc"');
      expect(app.output()).toContain('config: LOG_LEVEL must be one of');
    });
  });

  describe(`the ${name} example app on PostgreSQL`, () => {
    it('keeps its pets across a restart, seeding only the empty database', async () => {
      const db = await createTestDatabase(inject('postgresUrl'));
      try {
        const env = { DATABASE_URL: db.url, API_KEYS: 'pg-key-0123456789abcdef', SEED_PETS: '2' };
        const auth = { authorization: 'Bearer pg-key-0123456789abcdef' };
        const first = await startListening(appDir, env);
        expect(first.output()).toContain('storage: PostgreSQL, 2 demo pets created');
        const created = await sendHttp(first.origin, {
          method: 'POST',
          path: '/v1/pets',
          headers: { ...auth, ...json },
          body: '{"name":"Nemo","categoryId":2,"status":"sold"}',
        });
        expect([created.status, created.headers.location]).toEqual([201, '/v1/pets/3']);
        const ready = await sendHttp(first.origin, { method: 'GET', path: '/readyz' });
        expect([ready.status, ready.body]).toEqual([200, '{"status":"ready","storage":"ok"}']);
        first.signal('SIGTERM');
        expect(await first.exited).toBe(0);

        const second = await startListening(appDir, env);
        expect(second.output()).toContain(
          'storage: PostgreSQL, SEED_PETS=2 skipped: the storage already holds pets\n',
        );
        const listed = await sendHttp(second.origin, {
          method: 'GET',
          path: '/v1/pets',
          headers: auth,
        });
        expect(names(listed.body)).toEqual(['Rex 1', 'Tom 2', 'Nemo']);
        const next = await sendHttp(second.origin, {
          method: 'POST',
          path: '/v1/pets',
          headers: { ...auth, ...json },
          body: '{"name":"Dory","categoryId":1}',
        });
        expect(JSON.parse(next.body)).toMatchObject({ id: 4, name: 'Dory' });
        second.signal('SIGTERM');
        expect(await second.exited).toBe(0);
      } finally {
        await db.drop();
      }
    }, 40_000);

    it('fails fast with a clear message when the database is unreachable at start', async () => {
      const port = await refusedPort();
      const app = startApp(appDir, {
        DATABASE_URL: `postgres://petstore:hunter2@127.0.0.1:${port}/pets`,
      });
      expect(await app.exited).toBe(1);
      expect(app.output()).toContain(
        `start-up failed: cannot migrate the PostgreSQL database at DATABASE_URL: connect ECONNREFUSED 127.0.0.1:${port}`,
      );
      expect(app.output()).not.toContain('hunter2');
    });

    it.each([
      ['stays ready (200, storage: unavailable) while the database is unreachable', 'off', 200],
      [
        'with READY_REQUIRES_STORAGE=on, is not ready (503) while the database is unreachable',
        'on',
        503,
      ],
    ] as const)(
      '%s; alive, the API answers 503 with Retry-After, ready again after',
      async (_, requires, downStatus) => {
        const db = await createTestDatabase(inject('postgresUrl'));
        const target = new URL(db.url);
        const proxy = await tcpProxy({ host: target.hostname, port: Number(target.port) });
        try {
          target.host = `127.0.0.1:${proxy.port}`;
          const app = await startListening(appDir, {
            DATABASE_URL: target.toString(),
            API_KEYS: 'pg-key-0123456789abcdef',
            READY_REQUIRES_STORAGE: requires,
          });
          const readyz = () => sendHttp(app.origin, { method: 'GET', path: '/readyz' });
          expect((await readyz()).status).toBe(200);

          await proxy.cut();
          // /readyz may answer from a result up to 1 s old.
          let down = await readyz();
          for (let attempt = 0; attempt < 20 && down.body.includes('"storage":"ok"'); attempt++) {
            await sleep(100);
            down = await readyz();
          }
          expect([down.status, JSON.parse(down.body)]).toEqual([
            downStatus,
            { status: downStatus === 200 ? 'ready' : 'unavailable', storage: 'unavailable' },
          ]);
          const live = await sendHttp(app.origin, { method: 'GET', path: '/healthz' });
          expect([live.status, live.body]).toEqual([200, '{"status":"ok"}']);
          const api = await sendHttp(app.origin, {
            method: 'GET',
            path: '/v1/pets',
            headers: { authorization: 'Bearer pg-key-0123456789abcdef' },
          });
          expect([api.status, JSON.parse(api.body).code]).toEqual([503, 'service_unavailable']);
          expect(api.headers['retry-after']).toBe('1');
          expect(
            await app.waitForLog(
              isRequest({ route: '/readyz', requestId: down.headers['x-request-id'] }),
            ),
          ).toMatchObject({ status: downStatus, reason: expect.any(String) });

          await proxy.restore();
          let body = '';
          for (let attempt = 0; attempt < 20 && !body.includes('"storage":"ok"'); attempt++) {
            if (attempt > 0) await sleep(250);
            body = (await readyz()).body;
          }
          expect(JSON.parse(body)).toEqual({ status: 'ready', storage: 'ok' });
          app.signal('SIGTERM');
          expect(await app.exited).toBe(0);
        } finally {
          await proxy.close();
          await db.drop();
        }
      },
      40_000,
    );
  });
}
