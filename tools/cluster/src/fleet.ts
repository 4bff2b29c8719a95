import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { killStartedApps, type ListeningApp, startListening } from '@petstore/service/testing';
import { writeDeploy } from '../../../deploy/fill.mjs';
import { type Cluster, freePort, until } from './cluster.js';
import { HAPROXY } from './tools.js';

// Instances of the Express example app over the cluster (DATABASE_URL: HAProxy's leader port;
// DATABASE_READ_URL, when asked: its replica port), behind deploy/haproxy.cfg as
// `node deploy/fill.mjs --instances ...` writes it.

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
export const KEY = 'cluster-key-0123456789abcdef';

export interface Fleet {
  readonly instances: readonly ListeningApp[];
  /** `http://127.0.0.1:<port>/v1` through the balancer. */
  readonly url: string;
  stop(): Promise<void>;
}

export interface FleetOptions {
  readonly instances?: number;
  /** Reads from the replicas (DATABASE_READ_URL). */
  readonly replicaReads?: boolean;
  readonly env?: Readonly<Record<string, string>>;
}

export async function startFleet(cluster: Cluster, options: FleetOptions = {}): Promise<Fleet> {
  const instances: ListeningApp[] = [];
  for (let n = 0; n < (options.instances ?? 2); n++) {
    instances.push(
      await startListening(join(ROOT, 'examples', 'express-app'), {
        API_KEYS: KEY,
        DATABASE_URL: cluster.databaseUrl,
        ...(options.replicaReads === true ? { DATABASE_READ_URL: cluster.readUrl } : {}),
        TRUSTED_PROXIES: '127.0.0.1',
        PG_POOL_MAX: '5',
        LOG_LEVEL: 'warn',
        ...options.env,
      }),
    );
  }
  const dir = await mkdtemp(join(tmpdir(), 'petstore-cluster-balancer-'));
  await writeDeploy(dir, { instances: instances.map((app) => new URL(app.origin).host) });
  const port = await freePort();
  const log = openSync(join(dir, 'haproxy.log'), 'a');
  const haproxy: ChildProcess = spawn(HAPROXY, ['-db', '-f', join(dir, 'haproxy.cfg')], {
    // The shipped settings, but for the address.
    env: { PATH: process.env.PATH ?? '', PETSTORE_LISTEN: `127.0.0.1:${port}` },
    stdio: ['ignore', log, log],
  });
  closeSync(log);
  process.once('exit', () => haproxy.kill('SIGKILL'));
  const origin = `http://127.0.0.1:${port}`;
  const stop = async () => {
    haproxy.kill('SIGKILL');
    killStartedApps();
    await rm(dir, { recursive: true, force: true });
  };
  await until(
    () =>
      fetch(`${origin}/readyz`).then(
        (res) => res.status === 200,
        () => false,
      ),
    15_000,
    () => `the balancer did not come up:\n${readFileSync(join(dir, 'haproxy.log'), 'utf8')}`,
  ).catch(async (error: unknown) => {
    await stop();
    throw error;
  });
  return { instances, url: `${origin}/v1`, stop };
}
