import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { chmod, chown, cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { type ClusterNode, writeCluster } from '../../../deploy/fill.mjs';
import {
  type ClusterPlacement,
  HERE,
  launch,
  type NodePlace,
  type Place,
  type RunAs,
} from './placement.js';

export type { RunAs };

import { ETCD, HAPROXY, PATRONI, POSTGRES_BIN } from './tools.js';

// Three PostgreSQL 15 nodes under Patroni 3.0 with one etcd, and HAProxy in front (leader and
// replica ports), all on 127.0.0.1 with ports of their own, from deploy/cluster/'s files as
// `node deploy/fill.mjs --cluster` writes them (or, with a placement, each where it says: see
// placement.ts). Under root, Patroni and PostgreSQL run as the `postgres` user (PostgreSQL
// refuses root). Every process is started here and stopped by its PID (or the process group it
// leads); nothing else is touched.

/** The user PostgreSQL runs as: `postgres` under root, else ourselves. */
function serverUser(): RunAs | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) =>
    Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8', stdio: 'pipe' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (address !== null && typeof address === 'object') resolve(address.port);
        else reject(new Error('no port'));
      });
    });
  });
}

/** Sends `signal` to the process group `pgid` leads; false when it is gone. */
function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/** The parent PID of `pid` (field 4 of /proc/<pid>/stat), or undefined when it is gone. */
function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    return Number.isInteger(ppid) ? ppid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `signal` to a postmaster, then to each of its children (backends, walsenders, the checkpointer,
 * ...). Each child is a session of its own, so a signal to the postmaster's process group misses
 * them; the postmaster goes first, so it forks no new child meanwhile.
 */
function signalPostgres(postmaster: number, signal: NodeJS.Signals): void {
  try {
    process.kill(postmaster, signal);
  } catch {
    return;
  }
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || parentOf(pid) !== postmaster) continue;
    try {
      process.kill(pid, signal);
    } catch {
      // Gone meanwhile.
    }
  }
}

export interface NodeMember {
  readonly name: string;
  readonly role: string;
  readonly state: string;
  readonly lag?: number | string;
  readonly timeline?: number;
}

export interface PatroniNode {
  readonly name: string;
  /** Where HAProxy and clients reach its PostgreSQL and REST API. */
  readonly host: string;
  readonly postgresPort: number;
  readonly apiPort: number;
  readonly dataDir: string;
  /** The superuser's URL of this node's PostgreSQL (straight, not through HAProxy). */
  readonly superuserUrl: string;
  /** Patroni's PID (the leader of its process group), or undefined while stopped. */
  patroniPid(): number | undefined;
  /** The postmaster's PID from postmaster.pid, or undefined. */
  postmasterPid(): number | undefined;
  /** kill -9 of the whole node: Patroni and PostgreSQL (each its process group). */
  kill(): Promise<void>;
  /** SIGSTOP (true) or SIGCONT (false) to the whole node: a hung machine. */
  freeze(frozen: boolean): void;
  /** Starts Patroni again on the same files (after kill()). */
  start(): void;
  /** GET `path` on its REST API: the status, or 0 when it did not answer within `ms`. */
  api(path: string, ms?: number): Promise<number>;
}

export interface Cluster {
  readonly dir: string;
  readonly scope: string;
  readonly nodes: readonly PatroniNode[];
  /** `<host>:<port>` of the etcd client URL. */
  readonly etcd: string;
  /** The HAProxy ports: to the leader, and to the replicas. */
  readonly primaryPort: number;
  readonly replicasPort: number;
  /** The application's role and database, through HAProxy's leader port. */
  readonly databaseUrl: string;
  /** The same role and database through the replica port. */
  readonly readUrl: string;
  /** The superuser through HAProxy's leader port. */
  readonly superuserUrl: string;
  readonly restApiAuth: string;
  /** The members as a reachable node's REST API says (GET /cluster). */
  members(): Promise<NodeMember[]>;
  /** The leader's name, asking the nodes in turn. */
  leader(): Promise<string | undefined>;
  /** Waits until there is a leader, a synchronous standby and every node runs; throws after `ms`. */
  waitHealthy(ms?: number): Promise<NodeMember[]>;
  /** POST /switchover on the leader (Patroni picks the candidate: the synchronous standby). */
  switchover(): Promise<{ status: number; body: string; from: string }>;
  /**
   * Maintenance mode on (true) or off: Patroni then neither fails over nor touches PostgreSQL
   * (PATCH /config {"pause": ...}, as `patronictl pause` does). Resolves once every running
   * node says so.
   */
  setPaused(paused: boolean): Promise<void>;
  /** HAProxy's output (its check log). */
  haproxyOutput(): string;
  /** The PIDs of etcd and HAProxy (for memory figures). */
  processIds(): { readonly etcd: number | undefined; readonly haproxy: number | undefined };
  /** Patroni's log of a node. */
  log(name: string): string;
  stop(): Promise<void>;
}

export interface ClusterOptions {
  /** Extra lines for the PostgreSQL parameters of every node (bootstrap.dcs.postgresql.parameters). */
  readonly parameters?: Readonly<Record<string, string>>;
  /** The app's role and its database, created on the leader once it runs. */
  readonly role?: string;
  readonly database?: string;
  /** HAProxy's check interval (PETSTORE_PG_CHECK_INTERVAL); the shipped default otherwise. */
  readonly checkInterval?: string;
  /** Use the etcd v3 API (`etcd3:`) instead of the shipped v2 (`etcd:`): to compare. */
  readonly etcd3?: boolean;
  /** How long to wait for another cluster on this machine to stop (default 10 minutes). */
  readonly lockWaitMs?: number;
  /**
   * Where each process runs (tools/partition: a network namespace each), with the usual ports;
   * default: all on 127.0.0.1 here, each port a free one.
   */
  readonly placement?: ClusterPlacement;
  /** Copies the processes' logs here when the cluster stops (the cluster's folder is removed). */
  readonly keepLogsIn?: string;
  /**
   * Takes the one-cluster lock (default). False: the caller holds it already (tools/partition
   * takes it before it makes its network).
   */
  readonly lock?: boolean;
}

const children: ChildProcess[] = [];
const groups = new Set<number>();
/** Each node's postmaster PID (a PostgreSQL outlives a Patroni killed with SIGKILL). */
const postmasters: (() => number | undefined)[] = [];
process.once('exit', () => {
  for (const pgid of groups) signalGroup(pgid, 'SIGKILL');
  for (const postmaster of postmasters) {
    const pid = postmaster();
    if (pid !== undefined) signalPostgres(pid, 'SIGKILL');
  }
  for (const child of children) child.kill('SIGKILL');
});

const LOCK = join(tmpdir(), 'petstore-cluster.lock');

/** The one-cluster lock, for a caller that starts more than the cluster under it. */
export const takeClusterLock = (waitMs = 600_000) => takeLock(waitMs);

/**
 * One cluster at a time on this machine: its timings (a failover within 10 s) are the figures
 * under test, and two clusters under load on two cores would measure each other. A test file
 * that starts one while another runs (vitest runs files in parallel) waits for it, up to
 * `waitMs`. The lock is a folder holding its owner's PID; a dead owner's lock is taken over.
 */
async function takeLock(waitMs: number): Promise<() => Promise<void>> {
  const end = performance.now() + waitMs;
  for (;;) {
    try {
      await mkdir(LOCK);
      await writeFile(join(LOCK, 'pid'), String(process.pid));
      let held = true;
      return async () => {
        if (!held) return;
        held = false;
        await rm(LOCK, { recursive: true, force: true });
      };
    } catch {
      const owner = Number(await readFile(join(LOCK, 'pid'), 'utf8').catch(() => ''));
      let alive = owner === process.pid;
      if (Number.isInteger(owner) && owner > 0 && !alive) {
        try {
          process.kill(owner, 0);
          alive = true;
        } catch {
          alive = false;
        }
      }
      // No PID yet (being written) counts as alive for a moment.
      if (!alive && owner > 0) await rm(LOCK, { recursive: true, force: true });
      if (performance.now() > end) throw new Error(`another cluster held ${LOCK} for ${waitMs} ms`);
      await sleep(500);
    }
  }
}

/** Starts etcd, three Patroni nodes and HAProxy; resolves once the cluster is healthy. */
export async function startCluster(options: ClusterOptions = {}): Promise<Cluster> {
  const unlock =
    options.lock === false ? async () => undefined : await takeLock(options.lockWaitMs ?? 600_000);
  try {
    return await startUnlocked(options, unlock);
  } catch (error) {
    await unlock();
    throw error;
  }
}

async function startUnlocked(
  options: ClusterOptions,
  unlock: () => Promise<void>,
): Promise<Cluster> {
  const dir = await mkdtemp(join(tmpdir(), 'petstore-cluster-'));
  await chmod(dir, 0o755);
  const runAs = serverUser();
  const owned = async (path: string): Promise<string> => {
    await mkdir(path, { recursive: true, mode: 0o700 });
    if (runAs !== undefined) await chown(path, runAs.uid, runAs.gid);
    return path;
  };
  const placed = options.placement;
  // Placed: each process has its address, so the usual ports; here: free ones on 127.0.0.1.
  const port = (usual: number) => (placed === undefined ? freePort() : Promise.resolve(usual));
  const [etcdPort, peerPort, primaryPort, replicasPort] = [
    await port(2379),
    await port(2380),
    await port(5000),
    await port(5001),
  ];
  const etcdPlace: Place = placed?.etcd ?? HERE;
  const haproxyPlace: Place = placed?.haproxy ?? HERE;
  const nodePlaces = [0, 1, 2].map((n) => placed?.nodes[n] ?? { ...HERE, peerHost: HERE.host });
  const nodes: ClusterNode[] = [];
  for (const place of nodePlaces) {
    nodes.push({ host: place.host, postgresPort: await port(5432), apiPort: await port(8008) });
  }
  const etcdHost = etcdPlace.host;
  const scope = `petstore-${randomBytes(4).toString('hex')}`;
  const dataDir = await owned(join(dir, 'data'));
  const socketDir = await owned(join(dir, 'sockets'));
  await chmod(dataDir, 0o755);
  const conf = join(dir, 'conf');
  await writeCluster(conf, {
    nodes,
    etcd: [`${etcdHost}:${etcdPort}`],
    network: placed?.network ?? '127.0.0.1/32',
    dataDir,
    binDir: POSTGRES_BIN,
    scope,
  });
  // Test-only changes to the filled files: sockets in our folder, extra parameters, or etcd3.
  for (let n = 1; n <= 3; n++) {
    const file = join(conf, `patroni-${n}.yml`);
    let text = await readFile(file, 'utf8');
    text = text.replace(
      /^( {2}pgpass: .*\n)/m,
      // A folder per node: placed nodes share a port (each its own address), not a socket.
      `$1  parameters:\n    unix_socket_directories: ${await owned(join(socketDir, `pg${n}`))}\n`,
    );
    for (const [name, value] of Object.entries(options.parameters ?? {})) {
      text = text.replace(/^( {6}parameters:\n)/m, `$1        ${name}: ${JSON.stringify(value)}\n`);
    }
    if (options.etcd3 === true) text = text.replace(/^etcd:$/m, 'etcd3:');
    const nodePlace = nodePlaces[n - 1];
    if (placed !== undefined && nodePlace !== undefined) text = listenEverywhere(text, nodePlace);
    await writeFile(file, text);
    if (runAs !== undefined) await chown(file, runAs.uid, runAs.gid);
  }
  const logs = await owned(join(dir, 'logs'));
  await chmod(logs, 0o755);

  const superPassword = randomBytes(12).toString('hex');
  const replPassword = randomBytes(12).toString('hex');
  const apiPassword = randomBytes(12).toString('hex');
  const restApiAuth = `Basic ${Buffer.from(`patroni:${apiPassword}`).toString('base64')}`;

  // etcd: one member, the v2 API on (Patroni's `etcd:` section speaks v2).
  const etcdLog = openSync(join(logs, 'etcd.log'), 'a');
  const etcdLaunch = launch(etcdPlace, [
    ETCD,
    '--name',
    'etcd1',
    '--data-dir',
    join(dir, 'etcd'),
    '--listen-client-urls',
    `http://${etcdHost}:${etcdPort}`,
    '--advertise-client-urls',
    `http://${etcdHost}:${etcdPort}`,
    '--listen-peer-urls',
    `http://${etcdHost}:${peerPort}`,
    '--initial-advertise-peer-urls',
    `http://${etcdHost}:${peerPort}`,
    '--initial-cluster',
    `etcd1=http://${etcdHost}:${peerPort}`,
    '--enable-v2=true',
    // No metrics or profiling listeners beyond the client port.
    '--listen-metrics-urls',
    '',
  ]);
  const etcd = spawn(etcdLaunch.command, etcdLaunch.args, {
    stdio: ['ignore', etcdLog, etcdLog],
    env: { PATH: process.env.PATH ?? '' },
  });
  closeSync(etcdLog);
  children.push(etcd);
  await until(
    () =>
      fetch(`http://${etcdHost}:${etcdPort}/health`).then(
        (res) => res.ok,
        () => false,
      ),
    15_000,
    () => `etcd did not come up:\n${safeRead(join(logs, 'etcd.log'))}`,
  );

  const patroniEnv = {
    PATH: process.env.PATH ?? '',
    HOME: dataDir,
    LANG: 'C.UTF-8',
    LC_ALL: 'C.UTF-8',
    TZ: 'UTC',
    PATRONI_SUPERUSER_PASSWORD: superPassword,
    PATRONI_REPLICATION_PASSWORD: replPassword,
    PATRONI_RESTAPI_PASSWORD: apiPassword,
  };
  const patronis: (ChildProcess | undefined)[] = [undefined, undefined, undefined];
  const startPatroni = (n: number): void => {
    const log = openSync(join(logs, `pg${n + 1}.log`), 'a');
    const how = launch(nodePlaces[n] ?? HERE, [PATRONI, join(conf, `patroni-${n + 1}.yml`)], runAs);
    const child = spawn(how.command, how.args, {
      cwd: dataDir,
      env: patroniEnv,
      stdio: ['ignore', log, log],
      // Its own process group, so the whole node can be killed or frozen at once.
      detached: true,
      ...(how.ids ?? {}),
    });
    closeSync(log);
    children.push(child);
    if (child.pid !== undefined) groups.add(child.pid);
    patronis[n] = child;
  };

  const nodeObjects: PatroniNode[] = nodes.map((node, n) => {
    const name = `pg${n + 1}`;
    const nodeDir = join(dataDir, name);
    // The PID in postmaster.pid, if that process is still this node's postgres (never a process
    // that reused the PID of a dead one).
    const postmasterPid = (): number | undefined => {
      try {
        const pid = Number(readFileSync(join(nodeDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
        if (!Number.isInteger(pid) || pid <= 1) return undefined;
        const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        return command.includes(nodeDir) ? pid : undefined;
      } catch {
        return undefined;
      }
    };
    postmasters.push(postmasterPid);
    return {
      name,
      host: node.host,
      postgresPort: node.postgresPort,
      apiPort: node.apiPort,
      dataDir: nodeDir,
      superuserUrl: `postgres://postgres:${superPassword}@${node.host}:${node.postgresPort}/postgres`,
      patroniPid: () => patronis[n]?.pid,
      postmasterPid,
      async kill() {
        const child = patronis[n];
        const postmaster = postmasterPid();
        if (child?.pid !== undefined) signalGroup(child.pid, 'SIGKILL');
        if (postmaster !== undefined) signalPostgres(postmaster, 'SIGKILL');
        if (child !== undefined && child.exitCode === null && child.signalCode === null) {
          await new Promise((resolve) => child.once('exit', resolve));
        }
        patronis[n] = undefined;
      },
      freeze(frozen) {
        const signal = frozen ? 'SIGSTOP' : 'SIGCONT';
        const pid = patronis[n]?.pid;
        const postmaster = postmasterPid();
        if (pid !== undefined) signalGroup(pid, signal);
        if (postmaster !== undefined) signalPostgres(postmaster, signal);
      },
      start: () => startPatroni(n),
      api: (path, ms = 2000) =>
        fetch(`http://${node.host}:${node.apiPort}${path}`, {
          signal: AbortSignal.timeout(ms),
        }).then(
          async (res) => {
            await res.arrayBuffer();
            return res.status;
          },
          () => 0,
        ),
    };
  });

  const members = async (): Promise<NodeMember[]> => {
    for (const node of nodes) {
      try {
        const res = await fetch(`http://${node.host}:${node.apiPort}/cluster`, {
          signal: AbortSignal.timeout(2000),
        });
        if (res.ok) return ((await res.json()) as { members: NodeMember[] }).members;
      } catch {
        // Try the next node.
      }
    }
    return [];
  };
  const leader = async () => (await members()).find((m) => m.role === 'leader')?.name;
  const healthy = (list: readonly NodeMember[]): boolean =>
    list.length === 3 &&
    list.some((m) => m.role === 'leader' && m.state === 'running') &&
    list.some(
      (m) => m.role === 'sync_standby' && (m.state === 'running' || m.state === 'streaming'),
    ) &&
    list.every((m) => m.state === 'running' || m.state === 'streaming');
  const waitHealthy = async (ms = 90_000): Promise<NodeMember[]> => {
    let last: NodeMember[] = [];
    await until(
      async () => {
        last = await members();
        return healthy(last);
      },
      ms,
      () => `the cluster did not become healthy: ${JSON.stringify(last)}\n${tailLogs(logs)}`,
    );
    return last;
  };

  const haproxyLog = openSync(join(logs, 'haproxy.log'), 'a');
  let haproxy: ChildProcess | undefined;
  const stop = async () => {
    haproxy?.kill('SIGKILL');
    for (const node of nodeObjects) await node.kill().catch(() => undefined);
    etcd.kill('SIGKILL');
    await sleep(200);
    if (options.keepLogsIn !== undefined) {
      await cp(logs, options.keepLogsIn, { recursive: true }).catch(() => undefined);
    }
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
    await unlock();
  };

  try {
    for (let n = 0; n < 3; n++) startPatroni(n);
    await waitHealthy();

    // The application's role and database, on the leader.
    const role = options.role ?? 'petstore';
    const database = options.database ?? 'pets';
    const appPassword = randomBytes(12).toString('hex');
    const leaderName = await leader();
    const leaderNode = nodeObjects.find((node) => node.name === leaderName);
    if (leaderNode === undefined) throw new Error('no leader');
    const admin = new pg.Client({ connectionString: leaderNode.superuserUrl });
    await admin.connect();
    await admin.query(`CREATE ROLE "${role}" LOGIN PASSWORD '${appPassword}'`);
    await admin.query(`CREATE DATABASE "${database}" OWNER "${role}"`);
    await admin.end();

    const haproxyLaunch = launch(haproxyPlace, [
      HAPROXY,
      '-db',
      '-f',
      join(conf, 'haproxy-postgres.cfg'),
    ]);
    haproxy = spawn(haproxyLaunch.command, haproxyLaunch.args, {
      env: {
        PATH: process.env.PATH ?? '',
        PETSTORE_PG_LISTEN: `${haproxyPlace.host}:${primaryPort}`,
        PETSTORE_PG_REPLICAS_LISTEN: `${haproxyPlace.host}:${replicasPort}`,
        ...(options.checkInterval === undefined
          ? {}
          : { PETSTORE_PG_CHECK_INTERVAL: options.checkInterval }),
      },
      stdio: ['ignore', haproxyLog, haproxyLog],
    });
    closeSync(haproxyLog);
    children.push(haproxy);
    const proxy = haproxyPlace.host;
    const databaseUrl = `postgres://${role}:${appPassword}@${proxy}:${primaryPort}/${database}`;
    const readUrl = `postgres://${role}:${appPassword}@${proxy}:${replicasPort}/${database}`;
    // Through HAProxy: the leader port reaches the primary, the replica port a standby.
    await until(
      async () => (await inRecovery(databaseUrl)) === false && (await inRecovery(readUrl)) === true,
      20_000,
      () => `HAProxy did not route to the nodes:\n${safeRead(join(logs, 'haproxy.log'))}`,
    );

    return {
      dir,
      scope,
      nodes: nodeObjects,
      etcd: `${etcdHost}:${etcdPort}`,
      primaryPort,
      replicasPort,
      databaseUrl,
      readUrl,
      superuserUrl: `postgres://postgres:${superPassword}@${proxy}:${primaryPort}/${database}`,
      restApiAuth,
      members,
      leader,
      waitHealthy,
      async switchover() {
        const from = (await leader()) ?? '';
        const node = nodeObjects.find((candidate) => candidate.name === from);
        if (node === undefined) throw new Error('no leader to switch over from');
        const res = await fetch(`http://${node.host}:${node.apiPort}/switchover`, {
          method: 'POST',
          headers: { authorization: restApiAuth, 'content-type': 'application/json' },
          body: JSON.stringify({ leader: from }),
          signal: AbortSignal.timeout(60_000),
        });
        return { status: res.status, body: await res.text(), from };
      },
      async setPaused(paused) {
        const first = nodes[0];
        const res = await fetch(`http://${first?.host}:${first?.apiPort}/config`, {
          method: 'PATCH',
          headers: { authorization: restApiAuth, 'content-type': 'application/json' },
          body: JSON.stringify({ pause: paused }),
          signal: AbortSignal.timeout(10_000),
        });
        if (!res.ok) throw new Error(`PATCH /config: ${res.status} ${await res.text()}`);
        await until(
          async () => {
            const states = await Promise.all(
              nodeObjects.map((node) =>
                fetch(`http://${node.host}:${node.apiPort}/patroni`, {
                  signal: AbortSignal.timeout(2000),
                }).then(
                  async (answer) => ((await answer.json()) as { pause?: boolean }).pause === true,
                  () => paused,
                ),
              ),
            );
            return states.every((state) => state === paused);
          },
          15_000,
          () => `the nodes did not ${paused ? 'pause' : 'resume'}`,
        );
      },
      haproxyOutput: () => safeRead(join(logs, 'haproxy.log')),
      processIds: () => ({ etcd: etcd.pid, haproxy: haproxy?.pid }),
      log: (name) => safeRead(join(logs, `${name}.log`)),
      stop,
    };
  } catch (error) {
    const logText = tailLogs(logs);
    await stop();
    throw error instanceof Error ? new Error(`${error.message}\n${logText}`) : error;
  }
}

/**
 * A placed node's file: PostgreSQL listens on both of its addresses and the REST API on every
 * address of its namespace (HAProxy and clients reach it on one network, the other nodes on
 * another), and both tell the other nodes `peerHost` (replication and Patroni's calls go over
 * the cluster's network). Patroni itself connects to the first listen address.
 */
function listenEverywhere(text: string, place: NodePlace): string {
  const listen = (section: string, address: string) =>
    editYamlSection(text, section, (body) =>
      body
        .replace(
          /^( {2}listen: )\S+?:(\d+)$/m,
          (_l, key: string, port: string) => `${key}${address}:${port}`,
        )
        .replace(
          /^( {2}connect_address: )\S+?:(\d+)$/m,
          (_l, key: string, port: string) => `${key}${place.peerHost}:${port}`,
        ),
    );
  text = listen('restapi', '0.0.0.0');
  return listen('postgresql', `${place.host},${place.peerHost}`);
}

/** `text` with the top-level YAML section `section` passed through `edit`. */
function editYamlSection(text: string, section: string, edit: (body: string) => string): string {
  const start = text.search(new RegExp(`^${section}:`, 'm'));
  if (start < 0) return text;
  const next = text.slice(start + 1).search(/\n\S/);
  const end = next < 0 ? text.length : start + 1 + next + 1;
  return text.slice(0, start) + edit(text.slice(start, end)) + text.slice(end);
}

/**
 * The number of pets on one node (`superuserUrl`: its own PostgreSQL, not through HAProxy), or
 * -1 when it cannot be asked.
 */
export async function petCount(superuserUrl: string): Promise<number> {
  const url = new URL(superuserUrl);
  url.pathname = '/pets';
  const client = new pg.Client({ connectionString: url.href, connectionTimeoutMillis: 3000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    const { rows } = await client.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM petstore.pets',
    );
    return rows[0]?.n ?? -1;
  } catch {
    return -1;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** `pg_is_in_recovery()` through `url`, or undefined when it cannot connect. */
async function inRecovery(url: string): Promise<boolean | undefined> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    const { rows } = await client.query<{ r: boolean }>('SELECT pg_is_in_recovery() AS r');
    return rows[0]?.r;
  } catch {
    return undefined;
  } finally {
    await client.end().catch(() => undefined);
  }
}

function safeRead(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

function tailLogs(logs: string): string {
  return ['etcd', 'pg1', 'pg2', 'pg3', 'haproxy']
    .map((name) => {
      const text = safeRead(join(logs, `${name}.log`));
      return `--- ${name} (last lines)\n${text.split('\n').slice(-25).join('\n')}`;
    })
    .join('\n');
}

/** Polls `check` every 200 ms until it is true; throws `message()` after `ms`. */
export async function until(
  check: () => boolean | Promise<boolean>,
  ms: number,
  message: () => string,
): Promise<void> {
  const end = performance.now() + ms;
  while (!(await check())) {
    if (performance.now() > end) throw new Error(message());
    await sleep(200);
  }
}
