import { type ChildProcess, spawn } from 'node:child_process';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { sendHttp } from '@petstore/core/testing';
import { afterAll, describe, expect, it } from 'vitest';

const APP_DIR = fileURLToPath(new URL('..', import.meta.url));
const ENV_NAMES = ['PORT', 'HOST', 'API_KEYS', 'DATABASE_URL', 'SEED_PETS', 'SHUTDOWN_TIMEOUT_MS'];
const children: ChildProcess[] = [];

interface Started {
  readonly child: ChildProcess;
  readonly output: () => string;
  readonly exited: Promise<number | null>;
  /** Resolves with the first group (or the match) once the output shows `pattern`; 15 s at most. */
  waitFor(pattern: RegExp): Promise<string>;
}

/** Runs `src/main.ts` as a real process, as `pnpm start:hapi` does, on a port the system picks. */
function start(env: Record<string, string>): Started {
  const base = { ...process.env };
  for (const name of ENV_NAMES) delete base[name];
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--conditions=@petstore/source', 'src/main.ts'],
    {
      cwd: APP_DIR,
      env: { ...base, PORT: '0', HOST: '127.0.0.1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  children.push(child);
  let text = '';
  const waiters: Array<() => void> = [];
  const onData = (chunk: Buffer) => {
    text += chunk.toString('utf8');
    for (const wake of waiters.splice(0)) wake();
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  );
  const waitFor = (pattern: RegExp) =>
    new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no ${pattern} within 15 s in:\n${text}`)),
        15_000,
      );
      const check = () => {
        const match = pattern.exec(text);
        if (match !== null) {
          clearTimeout(timer);
          resolve(match[1] ?? match[0]);
        } else if (child.exitCode !== null) {
          clearTimeout(timer);
          reject(new Error(`exited ${child.exitCode} before ${pattern}:\n${text}`));
        } else waiters.push(check);
      };
      check();
    });
  return { child, output: () => text, exited, waitFor };
}

async function startListening(env: Record<string, string>) {
  const started = start(env);
  const url = await started.waitFor(/listening on (http:\/\/\S+\/v1)/);
  const key = await started.waitFor(/Bearer (\S+)" /);
  return { ...started, url, origin: new URL(url).origin, key };
}

const signal = (child: ChildProcess, name: NodeJS.Signals) => process.kill(child.pid ?? 0, name);

afterAll(() => {
  // Only the processes this file spawned, by their own PID.
  for (const child of children)
    if (child.exitCode === null && child.pid !== undefined) process.kill(child.pid, 'SIGKILL');
});

describe('the Hapi example app as a process', () => {
  it('serves the API with a generated key, finishes a request in flight on SIGTERM, and exits 0', async () => {
    const app = await startListening({ SEED_PETS: '2' });
    expect(app.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(app.output()).toContain('API key (generated, shown once');
    const auth = { authorization: `Bearer ${app.key}` };

    expect((await sendHttp(app.origin, { method: 'GET', path: '/healthz' })).body).toBe(
      '{"status":"ok"}',
    );
    expect((await sendHttp(app.origin, { method: 'GET', path: '/readyz' })).body).toBe(
      '{"status":"ready"}',
    );
    const created = await sendHttp(app.origin, {
      method: 'POST',
      path: '/v1/pets',
      headers: { ...auth, 'content-type': 'application/json' },
      body: '{"name":"Nemo","categoryId":2}',
    });
    expect([created.status, created.headers.location]).toEqual([201, '/v1/pets/3']);
    const listed = await sendHttp(app.origin, { method: 'GET', path: '/v1/pets', headers: auth });
    expect(JSON.parse(listed.body).map((pet: { name: string }) => pet.name)).toEqual([
      'Rex 1',
      'Tom 2',
      'Nemo',
    ]);
    // One JSON log line per request, without the Authorization header.
    const logged = await app.waitFor(/^(\{.*"url":"\/v1\/pets".*"status":200.*\})$/m);
    expect(JSON.parse(logged)).toMatchObject({
      method: 'GET',
      status: 200,
      requestId: listed.headers['x-request-id'],
    });
    // Printed in the key line and the curl hint, and never logged.
    expect(app.output().split(app.key).length - 1).toBe(2);

    // A create whose body is only half sent when SIGTERM arrives.
    const late = new Promise<{ status: number | undefined; body: string }>((resolve) => {
      const inFlight = request(`${app.url}/pets`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json', connection: 'keep-alive' },
        agent: false,
      });
      inFlight.on('response', (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => {
          body += chunk.toString();
        });
        res.on('end', () => resolve({ status: res.statusCode, body }));
      });
      inFlight.write('{"name":"Late",');
      setTimeout(() => {
        signal(app.child, 'SIGTERM');
        void app.waitFor(/SIGTERM: no new connections/).then(async () => {
          await expect(sendHttp(app.origin, { method: 'GET', path: '/healthz' })).rejects.toThrow(
            /ECONNREFUSED/,
          );
          inFlight.end('"categoryId":1}');
        });
      }, 200);
    });
    const lateAnswer = await late;
    expect(lateAnswer.status).toBe(201);
    expect(JSON.parse(lateAnswer.body)).toMatchObject({ id: 4, name: 'Late' });

    expect(await app.exited).toBe(0);
    expect(app.output()).toMatch(/stopped\n$/);
  });

  it('uses API_KEYS without printing them, and stops on SIGINT', async () => {
    const app = await startListening({ API_KEYS: 'first-key,second-key' });
    expect(app.output()).toContain('API keys: 2 from API_KEYS');
    expect(app.output()).not.toContain('first-key');
    const ok = await sendHttp(app.origin, {
      method: 'GET',
      path: '/v1/pets',
      headers: { authorization: 'Bearer second-key' },
    });
    expect([ok.status, ok.body]).toEqual([200, '[]']);
    expect(app.output()).not.toContain('second-key');
    signal(app.child, 'SIGINT');
    expect(await app.exited).toBe(0);
  });

  it('cuts a request that never finishes after SHUTDOWN_TIMEOUT_MS, and still exits 0', async () => {
    const app = await startListening({ SHUTDOWN_TIMEOUT_MS: '300' });
    const stuck = request(`${app.url}/pets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${app.key}`, 'content-type': 'application/json' },
      agent: false,
    });
    const dropped = new Promise<string>((resolve) =>
      stuck.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? '')),
    );
    stuck.write('{"name":');
    await new Promise((resolve) => setTimeout(resolve, 200));
    const signalled = Date.now();
    signal(app.child, 'SIGTERM');
    expect(await app.exited).toBe(0);
    expect(Date.now() - signalled).toBeLessThan(5_000);
    expect(await dropped).toMatch(/ECONNRESET|EPIPE/);
  });

  it('refuses bad configuration with a clear message and exit code 1', async () => {
    const app = start({ PORT: 'abc' });
    expect(await app.exited).toBe(1);
    expect(app.output()).toContain('config: PORT must be an integer from 0 to 65535, got "abc"');
  });
});
