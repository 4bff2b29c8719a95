import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, rmSync } from 'node:fs';
import { chmod, mkdtemp, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { findPgBouncer } from '@petstore/test-postgres';
import pg from 'pg';
import { fillDeploy } from '../../../deploy/fill.mjs';
import { freePort } from './cluster.js';
import { HERE, launch, type Place } from './placement.js';

// PgBouncer where docs/operations.md puts it for a cluster: between the instances and HAProxy's
// leader port (`fill.mjs --postgres <haproxy>:5000`), from deploy/pgbouncer.ini as that command
// writes it, SCRAM with the role's secret from the leader, as the `postgres` user (PgBouncer
// refuses root), at `place` (a free port on 127.0.0.1 by default; PgBouncer's own, 6432, in a
// namespace of its own).

export interface Bouncer {
  /** The app's URL through PgBouncer. */
  readonly url: string;
  readonly pid: number | undefined;
  stop(): void;
}

export async function startBouncer(
  superuserUrl: string,
  databaseUrl: string,
  place: Place = HERE,
): Promise<Bouncer> {
  const found = findPgBouncer();
  if ('missing' in found) throw new Error(found.missing);
  const app = new URL(databaseUrl);
  const role = decodeURIComponent(app.username);
  const database = app.pathname.slice(1);
  const admin = new pg.Client({ connectionString: superuserUrl });
  await admin.connect();
  const { rows } = await admin
    .query<{ secret: string }>('SELECT rolpassword AS secret FROM pg_authid WHERE rolname = $1', [
      role,
    ])
    .finally(() => admin.end());
  const dir = await mkdtemp(join(tmpdir(), 'petstore-cluster-pgbouncer-'));
  await chmod(dir, 0o755);
  const authFile = join(dir, 'userlist.txt');
  await writeFile(authFile, `"${role}" "${rows[0]?.secret ?? ''}"\n`, { mode: 0o644 });
  const port = place.prefix.length === 0 ? await freePort() : 6432;
  const ini = fillDeploy({
    database,
    postgres: `${app.hostname}:${app.port}`,
    pgbouncerListen: `${place.host}:${port}`,
    authFile,
  })['pgbouncer.ini'];
  const config = join(dir, 'pgbouncer.ini');
  await writeFile(config, ini, { mode: 0o644 });
  const ids = (flag: string) =>
    Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  const how = launch(place, [found.bin, config], { uid: ids('-u'), gid: ids('-g') });
  const logPath = join(dir, 'pgbouncer.log');
  const log = openSync(logPath, 'a');
  const child: ChildProcess = spawn(how.command, how.args, {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '' },
    stdio: ['ignore', log, log],
    ...(how.ids ?? {}),
  });
  closeSync(log);
  const stop = () => {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', stop);
  const end = performance.now() + 15_000;
  while (!(await accepts(place.host, port))) {
    if (child.exitCode !== null || performance.now() > end) {
      stop();
      throw new Error(
        `PgBouncer did not listen on ${place.host}:${port}:\n${readFileSync(logPath, 'utf8')}`,
      );
    }
    await sleep(100);
  }
  const url = new URL(databaseUrl);
  url.hostname = place.host;
  url.port = String(port);
  return { url: url.href, pid: child.pid, stop };
}

function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, host);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
