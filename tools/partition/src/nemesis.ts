import { setTimeout as sleep } from 'node:timers/promises';
import type { Cluster } from '@petstore/cluster';
import { type Bridge, bridgesOf, type HostName, setLink } from './network.js';

// The faults, each a partition of the network made by cutting links, held for a while, then
// healed; the schedule waits for the system to recover before the next one.

export interface FaultRecord {
  readonly what: string;
  /** Seconds since the run's start. */
  readonly at: number;
  healedAt?: number;
  /** When the cluster was healthy and every instance served creates again, after the heal. */
  recoveredAt?: number;
}

/** The links a fault cut, to restore. */
type Cut = readonly (readonly [HostName, Bridge])[];

export interface NemesisContext {
  readonly cluster: Cluster;
  readonly now: () => number;
  /** Whether every instance serves creates since `since` (probes straight to each, no retries). */
  readonly allServing: (since: number) => Promise<boolean>;
  readonly log: (line: string) => void;
}

export type FaultName =
  | 'leader-cut-from-cluster'
  | 'leader-isolated'
  | 'standby-isolated'
  | 'instance-cut-from-db'
  | 'ready-instance-cut-from-db'
  | 'etcd-isolated'
  | 'flapping';

export const FAULTS: readonly FaultName[] = [
  'leader-cut-from-cluster',
  'leader-isolated',
  'standby-isolated',
  'instance-cut-from-db',
  'ready-instance-cut-from-db',
  'etcd-isolated',
  'flapping',
];

/** How long each fault holds, and the flapping link's rhythm. */
export interface Timing {
  readonly holdSeconds: Readonly<Record<Exclude<FaultName, 'flapping'>, number>>;
  readonly flapSeconds: number;
  readonly flapDownSeconds: number;
  readonly flapUpSeconds: number;
  /** How long the system may take to recover before the schedule gives up on it. */
  readonly recoverWithinSeconds: number;
  /** Quiet seconds after a recovery before the next fault. */
  readonly settleSeconds: number;
}

export const SHORT: Timing = {
  holdSeconds: {
    'leader-cut-from-cluster': 12,
    'leader-isolated': 12,
    'standby-isolated': 10,
    'instance-cut-from-db': 6,
    'ready-instance-cut-from-db': 6,
    'etcd-isolated': 10,
  },
  flapSeconds: 20,
  flapDownSeconds: 2,
  flapUpSeconds: 3,
  recoverWithinSeconds: 90,
  settleSeconds: 3,
};

export const FULL: Timing = {
  holdSeconds: {
    'leader-cut-from-cluster': 25,
    'leader-isolated': 25,
    'standby-isolated': 25,
    'instance-cut-from-db': 20,
    'ready-instance-cut-from-db': 20,
    'etcd-isolated': 25,
  },
  flapSeconds: 60,
  flapDownSeconds: 3,
  flapUpSeconds: 3,
  recoverWithinSeconds: 120,
  settleSeconds: 10,
};

/** The instances, by index: app1 keeps the default readiness, app3 requires the storage. */
export const INSTANCE_HOSTS: readonly HostName[] = ['app1', 'app2', 'app3'];
export const READY_REQUIRES_STORAGE_INSTANCE = 2;

async function nodeHost(cluster: Cluster, role: 'leader' | 'sync_standby'): Promise<HostName> {
  const end = performance.now() + 60_000;
  for (;;) {
    const member = (await cluster.members()).find((m) => m.role === role);
    if (member !== undefined && /^pg[123]$/.test(member.name)) return member.name as HostName;
    if (performance.now() > end) throw new Error(`no ${role} within 60 s`);
    await sleep(250);
  }
}

const cutAll = (cut: Cut): void => {
  for (const [host, bridge] of cut) setLink(host, bridge, false);
};
const healAll = (cut: Cut): void => {
  for (const [host, bridge] of cut) setLink(host, bridge, true);
};
const isolation = (host: HostName): Cut => bridgesOf(host).map((bridge) => [host, bridge] as const);

/**
 * Injects `fault`, holds it, heals it; resolves with its record once healed (recovery is the
 * schedule's to wait for).
 */
export async function inject(
  fault: FaultName,
  timing: Timing,
  ctx: NemesisContext,
): Promise<FaultRecord> {
  const { cluster, now, log } = ctx;
  const hold = async (cut: Cut, what: string): Promise<FaultRecord> => {
    cutAll(cut);
    const record: FaultRecord = { what, at: now() };
    log(`${record.at.toFixed(1)}s ${what}`);
    try {
      await sleep(timing.holdSeconds[fault as Exclude<FaultName, 'flapping'>] * 1000);
    } finally {
      healAll(cut);
    }
    record.healedAt = now();
    log(`${record.healedAt.toFixed(1)}s healed`);
    return record;
  };
  switch (fault) {
    case 'leader-cut-from-cluster': {
      const leader = await nodeHost(cluster, 'leader');
      return hold([[leader, 'cluster']], `leader ${leader} cut from etcd and standbys`);
    }
    case 'leader-isolated': {
      const leader = await nodeHost(cluster, 'leader');
      return hold(isolation(leader), `leader ${leader} isolated`);
    }
    case 'standby-isolated': {
      const standby = await nodeHost(cluster, 'sync_standby');
      return hold(isolation(standby), `sync standby ${standby} isolated`);
    }
    case 'instance-cut-from-db':
      return hold([['app1', 'data']], 'app1 cut from the database');
    case 'ready-instance-cut-from-db': {
      const host = INSTANCE_HOSTS[READY_REQUIRES_STORAGE_INSTANCE] as HostName;
      return hold([[host, 'data']], `${host} (READY_REQUIRES_STORAGE=on) cut from the database`);
    }
    case 'etcd-isolated':
      return hold(isolation('etcd'), 'etcd isolated');
    case 'flapping': {
      const leader = await nodeHost(cluster, 'leader');
      const record: FaultRecord = {
        what: `leader ${leader}'s cluster link flapping ${timing.flapDownSeconds} s down, ${timing.flapUpSeconds} s up`,
        at: now(),
      };
      log(`${record.at.toFixed(1)}s ${record.what}`);
      const end = now() + timing.flapSeconds;
      try {
        while (now() < end) {
          setLink(leader, 'cluster', false);
          await sleep(timing.flapDownSeconds * 1000);
          setLink(leader, 'cluster', true);
          await sleep(timing.flapUpSeconds * 1000);
        }
      } finally {
        setLink(leader, 'cluster', true);
      }
      record.healedAt = now();
      log(`${record.healedAt.toFixed(1)}s healed`);
      return record;
    }
  }
}

/** How far behind (bytes of WAL) a replica may be and count as caught up. */
const CAUGHT_UP_BYTES = 16 * 1024 * 1024;

/**
 * A leader, a synchronous standby, and every other node a replica that streams and has caught
 * up (its lag known and small). Patroni says `running` of a replica that restarted but has not
 * reached a consistent state yet (it needs its upstream's WAL): counting it whole would let the
 * next fault cut that upstream and strand it.
 */
async function whole(cluster: Cluster): Promise<boolean> {
  const members = await cluster.members();
  return (
    members.length === 3 &&
    members.some((m) => m.role === 'leader' && m.state === 'running') &&
    members.some((m) => m.role === 'sync_standby') &&
    members.every(
      (m) =>
        m.role === 'leader' ||
        ((m.state === 'running' || m.state === 'streaming') &&
          typeof m.lag === 'number' &&
          m.lag <= CAUGHT_UP_BYTES),
    )
  );
}

/**
 * After a heal: until the cluster is whole again (see `whole`) and every instance serves
 * creates. Sets `recoveredAt`; false when it took longer than `recoverWithinSeconds`.
 */
export async function awaitRecovery(
  record: FaultRecord,
  timing: Timing,
  ctx: NemesisContext,
): Promise<boolean> {
  const end = performance.now() + timing.recoverWithinSeconds * 1000;
  let healthy = false;
  while (performance.now() < end) {
    if (!healthy) healthy = await whole(ctx.cluster);
    if (healthy && (await ctx.allServing(record.healedAt ?? record.at))) {
      record.recoveredAt = ctx.now();
      ctx.log(`${record.recoveredAt.toFixed(1)}s recovered`);
      return true;
    }
    await sleep(250);
  }
  ctx.log(`not recovered within ${timing.recoverWithinSeconds} s of the heal`);
  return false;
}
