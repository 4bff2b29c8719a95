import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { killStartedApps, type ListeningApp, startListening } from '@petstore/service/testing';
import { writeDeploy } from '../../../deploy/fill.mjs';
import { type Cluster, freePort, until } from './cluster.js';
import { HERE, launch, type Place } from './placement.js';
import { HAPROXY } from './tools.js';

// Instances of the Express example app (or others) over the cluster (DATABASE_URL: HAProxy's
// leader port, or what `databaseUrl` says; DATABASE_READ_URL, when asked: its replica port),
// behind deploy/haproxy.cfg as `node deploy/fill.mjs --instances ...` writes it; all on
// 127.0.0.1, or each where a placement says (tools/partition).

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
export const KEY = 'cluster-key-0123456789abcdef';

export interface Fleet {
  readonly instances: readonly ListeningApp[];
  /** `http://<balancer>:<port>/v1` through the balancer. */
  readonly url: string;
  /** The balancer's PID. */
  readonly balancerPid: number | undefined;
  stop(): Promise<void>;
}

/** Where each instance and the balancer run (tools/partition: namespaces of their own). */
export interface FleetPlacement {
  readonly instances: readonly Place[];
  readonly balancer: Place;
}

export interface FleetOptions {
  readonly instances?: number;
  /** Reads from the replicas (DATABASE_READ_URL). */
  readonly replicaReads?: boolean;
  readonly env?: Readonly<Record<string, string>>;
  /** More variables for one instance (by its index). */
  readonly envOf?: (instance: number) => Readonly<Record<string, string>>;
  /** The app each instance runs, by its index (`examples/express-app` by default). */
  readonly appOf?: (instance: number) => string;
  /** DATABASE_URL instead of HAProxy's leader port (PgBouncer in front of it). */
  readonly databaseUrl?: string;
  readonly placement?: FleetPlacement;
}

/** The instance's own address for API and management ports, and how it is started. */
function instanceSetup(place: Place | undefined): {
  env: Record<string, string>;
  how: { command?: string[] };
} {
  if (place === undefined || place.prefix.length === 0) return { env: {}, how: {} };
  const { command, args } = launch(place, [
    process.execPath,
    '--import',
    'tsx',
    '--conditions=@petstore/source',
    'src/main.ts',
  ]);
  return {
    env: { HOST: place.host, PORT: '3000', MANAGEMENT_HOST: place.host, MANAGEMENT_PORT: '9464' },
    how: { command: [command, ...args] },
  };
}

export async function startFleet(cluster: Cluster, options: FleetOptions = {}): Promise<Fleet> {
  const instances: ListeningApp[] = [];
  const balancer = options.placement?.balancer ?? HERE;
  const count = options.placement?.instances.length ?? options.instances ?? 2;
  for (let n = 0; n < count; n++) {
    const placed = instanceSetup(options.placement?.instances[n]);
    instances.push(
      await startListening(
        join(ROOT, options.appOf?.(n) ?? 'examples/express-app'),
        {
          API_KEYS: KEY,
          DATABASE_URL: options.databaseUrl ?? cluster.databaseUrl,
          ...(options.replicaReads === true ? { DATABASE_READ_URL: cluster.readUrl } : {}),
          TRUSTED_PROXIES: balancer.host,
          PG_POOL_MAX: '5',
          LOG_LEVEL: 'warn',
          ...placed.env,
          ...options.env,
          ...options.envOf?.(n),
        },
        placed.how,
      ),
    );
  }
  const dir = await mkdtemp(join(tmpdir(), 'petstore-cluster-balancer-'));
  await writeDeploy(dir, { instances: instances.map((app) => new URL(app.origin).host) });
  const port = balancer.prefix.length === 0 ? await freePort() : 8080;
  const log = openSync(join(dir, 'haproxy.log'), 'a');
  const how = launch(balancer, [HAPROXY, '-db', '-f', join(dir, 'haproxy.cfg')]);
  const haproxy: ChildProcess = spawn(how.command, how.args, {
    // The shipped settings, but for the address.
    env: { PATH: process.env.PATH ?? '', PETSTORE_LISTEN: `${balancer.host}:${port}` },
    stdio: ['ignore', log, log],
  });
  closeSync(log);
  process.once('exit', () => haproxy.kill('SIGKILL'));
  const origin = `http://${balancer.host}:${port}`;
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
  return { instances, url: `${origin}/v1`, balancerPid: haproxy.pid, stop };
}
