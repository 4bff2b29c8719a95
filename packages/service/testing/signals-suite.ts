import { accessSync, constants, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { sendHttp } from '@petstore/conformance';
import { afterAll, describe, expect, it } from 'vitest';
import { RELAYED_SIGNAL_WINDOW_MS } from '../src/shutdown.js';
import { halfSentPost, killStartedApps, type ListeningApp, startListening } from './process.js';

export interface SignalSuiteOptions {
  /** For test titles: `Express`, `Hapi`. */
  readonly name: string;
  /** The app's directory (where its package.json with the `start` script is). */
  readonly appDir: string;
}

/** `pnpm` from PATH (it is there under `pnpm test`), else through npx at the root's version. */
function pnpmCommand(appDir: string): string[] {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    try {
      accessSync(join(dir, 'pnpm'), constants.X_OK);
      return [join(dir, 'pnpm')];
    } catch {
      // not here
    }
  }
  const root = JSON.parse(readFileSync(join(appDir, '../../package.json'), 'utf8')) as {
    packageManager: string;
  };
  return ['npx', '-y', root.packageManager];
}

/** `kill -SIG -- -PGID`: the signal to every process of the group, as Ctrl-C or a supervisor sends it. */
const signalGroup = (app: ListeningApp, signal: NodeJS.Signals): void => {
  if (app.child.pid !== undefined) process.kill(-app.child.pid, signal);
};

/** Whether any process of the app's group still runs. */
const groupAlive = (app: ListeningApp): boolean => {
  try {
    if (app.child.pid !== undefined) process.kill(-app.child.pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function groupGone(app: ListeningApp): Promise<void> {
  for (let waited = 0; groupAlive(app) && waited < 10_000; waited += 100) await sleep(100);
  expect(groupAlive(app)).toBe(false);
}

/** The app's own pid (not the wrapper's), from a request's log line. */
async function appPid(app: ListeningApp): Promise<number> {
  await sendHttp(app.origin, {
    method: 'GET',
    path: '/v1/pets',
    headers: { authorization: `Bearer ${app.key}`, 'x-request-id': 'pid-probe' },
  });
  const line = await app.waitForLog((entry) => entry.requestId === 'pid-probe');
  return Number(line.pid);
}

/**
 * Issue 10: started the way a person starts it (`pnpm start`: pnpm, a shell, tsx, then the app,
 * all in one process group), the app drains on a signal to the whole group, copies relayed by
 * the wrappers included, and a deliberate second signal still forces exit 1. pnpm itself ends by
 * re-raising the signal it got, whatever the app's code, so the app's exit code is read from
 * its last log line, which names it.
 */
export function describeSignalsThroughPnpm({ name, appDir }: SignalSuiteOptions): void {
  afterAll(killStartedApps);
  const start = () =>
    startListening(appDir, {}, { command: [...pnpmCommand(appDir), 'start'], processGroup: true });

  describe(`the ${name} example app started with pnpm start`, () => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      it(`finishes a POST in flight and exits 0 on ${signal} to the process group, with a relayed copy`, async () => {
        const app = await start();
        const pid = await appPid(app);
        const late = halfSentPost(
          `${app.url}/pets`,
          { authorization: `Bearer ${app.key}` },
          '{"name":"Late",',
        );
        await sleep(200);
        signalGroup(app, signal);
        await app.waitFor(new RegExp(`${signal}: no new connections`));
        // A wrapper's relayed copy (tsx's CLI sends one 30 ms after the first when it has not
        // seen its child take it). Sent once the first is handled, so the kernel cannot merge
        // the two into one delivery.
        process.kill(pid, signal);
        await sleep(100);
        late.finish('"categoryId":1}');
        const answer = await Promise.race([
          late.answer,
          late.failed.then((code) => ({ status: code, body: '' })),
        ]);
        expect(answer.status).toBe(201);
        expect(JSON.parse(answer.body)).toMatchObject({ name: 'Late' });
        const stopped = await app.waitForLog((line) => line.msg === 'stopped');
        expect(stopped).toMatchObject({ pid, exitCode: 0 });
        await groupGone(app);
        expect(app.output()).not.toContain('again: exiting now');
        expect(
          app
            .logLines()
            .filter((line) => line.pid === pid)
            .at(-1),
        ).toMatchObject({
          msg: 'stopped',
        });
      }, 40_000);
    }

    it('exits 1 at once on a second, deliberate SIGINT to the group', async () => {
      const app = await start();
      const pid = await appPid(app);
      const stuck = halfSentPost(`${app.url}/pets`, { authorization: `Bearer ${app.key}` }, '{');
      await sleep(200);
      signalGroup(app, 'SIGINT');
      await app.waitFor(/SIGINT: no new connections/);
      await sleep(RELAYED_SIGNAL_WINDOW_MS + 300);
      signalGroup(app, 'SIGINT');
      // pnpm answers the second SIGINT by sending its child a SIGTERM (its lifecycle runner's
      // procKill), which can reach the app before the group's own SIGINT does (seen once in a
      // CI run): either is the deliberate second signal, and the first one handled ends the app.
      const last = await app.waitForLog(
        (line) =>
          line.msg === 'SIGINT again: exiting now' || line.msg === 'SIGTERM again: exiting now',
      );
      expect(last).toMatchObject({ pid, exitCode: 1 });
      await groupGone(app);
      expect(app.output()).not.toContain('"msg":"stopped"');
      await stuck.failed;
    }, 40_000);
  });
}
