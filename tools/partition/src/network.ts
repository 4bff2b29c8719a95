import { execFileSync } from 'node:child_process';
import type { Place } from '@petstore/cluster';

// The partition test's network: one network namespace per process (or group of processes that
// share a machine), joined by veth pairs to three bridges inside a hub namespace of their own,
// with addresses in 10.241.0.0/16 that exist only inside these namespaces. Nothing is added to
// the machine's own namespace. A link is cut by taking its hub-side end down: the namespace's
// end loses its carrier, packets either way are dropped (no refusal, no reset), as a network
// that splits drops them.
//
//   front  10.241.1.0/24  the clients (the driver), the balancer, the instances' API ports
//   data   10.241.2.0/24  the instances, PgBouncer and HAProxy (pgha), the nodes' PostgreSQL
//   cluster 10.241.3.0/24 the nodes among themselves (replication, Patroni) and etcd
//
// The driver (cl) is on all three, to observe; its links are never cut. Every name starts with
// PREFIX, so a run removes what an earlier one left (one run at a time: the cluster lock).

export const PREFIX = 'petpart-';
export const HUB = `${PREFIX}hub`;

export type Bridge = 'front' | 'data' | 'cluster';
export const BRIDGES: readonly Bridge[] = ['front', 'data', 'cluster'];
const SUBNET: Readonly<Record<Bridge, string>> = {
  front: '10.241.1',
  data: '10.241.2',
  cluster: '10.241.3',
};
/** The interface's name inside a namespace, and the letter of its hub end. */
const LETTER: Readonly<Record<Bridge, string>> = { front: 'f', data: 'd', cluster: 'k' };
export const NETWORK_CIDR = '10.241.0.0/16';

export type HostName =
  | 'cl'
  | 'lb'
  | 'app1'
  | 'app2'
  | 'app3'
  | 'pgha'
  | 'pg1'
  | 'pg2'
  | 'pg3'
  | 'etcd';

/** Each namespace, and its address's last byte on each bridge it is on. */
const PLAN: Readonly<Record<HostName, Partial<Record<Bridge, number>>>> = {
  cl: { front: 10, data: 10, cluster: 10 },
  lb: { front: 2 },
  app1: { front: 11, data: 11 },
  app2: { front: 12, data: 12 },
  app3: { front: 13, data: 13 },
  pgha: { data: 2 },
  pg1: { data: 21, cluster: 21 },
  pg2: { data: 22, cluster: 22 },
  pg3: { data: 23, cluster: 23 },
  etcd: { cluster: 2 },
};
export const HOSTS = Object.keys(PLAN) as HostName[];

const ip = (...args: string[]): string =>
  execFileSync('ip', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

export const namespaceOf = (host: HostName): string => `${PREFIX}${host}`;

/** `host`'s address on `bridge`; throws when it is not on it. */
export function addressOf(host: HostName, bridge: Bridge): string {
  const last = PLAN[host][bridge];
  if (last === undefined) throw new Error(`${host} is not on the ${bridge} network`);
  return `${SUBNET[bridge]}.${last}`;
}

/** Where a process in `host`'s namespace runs, reached at its address on `bridge`. */
export const placeOf = (host: HostName, bridge: Bridge): Place => ({
  host: addressOf(host, bridge),
  prefix: ['ip', 'netns', 'exec', namespaceOf(host)],
});

/** The bridges `host` is on. */
export const bridgesOf = (host: HostName): Bridge[] =>
  BRIDGES.filter((bridge) => PLAN[host][bridge] !== undefined);

/** Our namespaces that exist now (from an earlier run, or this one). */
function ourNamespaces(): string[] {
  return ip('netns', 'list')
    .split('\n')
    .map((line) => line.split(' ')[0] ?? '')
    .filter((name) => name.startsWith(PREFIX));
}

/**
 * Removes every namespace of ours, with what still runs in it (only this test starts processes
 * there): SIGKILL to each PID `ip netns pids` lists, then the namespace. Its veths and bridges go
 * with it. Returns what it removed.
 */
export function removeNetwork(): string[] {
  const names = ourNamespaces();
  for (const name of names) {
    const pids = ip('netns', 'pids', name)
      .split('\n')
      .map(Number)
      .filter((pid) => Number.isInteger(pid) && pid > 1);
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone meanwhile.
      }
    }
  }
  for (const name of names) {
    try {
      ip('netns', 'del', name);
    } catch {
      // Already gone.
    }
  }
  return names;
}

/** Makes the namespaces, the bridges and the links, all up. Removes leftovers first. */
export function createNetwork(): void {
  removeNetwork();
  try {
    ip('netns', 'add', HUB);
    ip('-n', HUB, 'link', 'set', 'lo', 'up');
    for (const bridge of BRIDGES) {
      ip('-n', HUB, 'link', 'add', bridge, 'type', 'bridge');
      ip('-n', HUB, 'link', 'set', bridge, 'up');
    }
    for (const host of HOSTS) {
      const ns = namespaceOf(host);
      ip('netns', 'add', ns);
      ip('-n', ns, 'link', 'set', 'lo', 'up');
      for (const bridge of bridgesOf(host)) {
        const inside = `${LETTER[bridge]}0`;
        const hubEnd = hubEndOf(host, bridge);
        ip(
          'link',
          'add',
          'name',
          inside,
          'netns',
          ns,
          'type',
          'veth',
          'peer',
          'name',
          hubEnd,
          'netns',
          HUB,
        );
        ip('-n', HUB, 'link', 'set', hubEnd, 'master', bridge, 'up');
        ip('-n', ns, 'addr', 'add', `${addressOf(host, bridge)}/24`, 'dev', inside);
        ip('-n', ns, 'link', 'set', inside, 'up');
      }
    }
  } catch (error) {
    removeNetwork();
    throw error;
  }
}

const hubEndOf = (host: HostName, bridge: Bridge): string => `${host}-${LETTER[bridge]}`;

/** Cuts (false) or restores (true) `host`'s link to `bridge`. */
export function setLink(host: HostName, bridge: Bridge, up: boolean): void {
  ip('-n', HUB, 'link', 'set', hubEndOf(host, bridge), up ? 'up' : 'down');
}

/** Whether the network is there (every namespace of the plan). */
export function networkPresent(): boolean {
  const present = new Set(ourNamespaces());
  return [HUB, ...HOSTS.map(namespaceOf)].every((name) => present.has(name));
}
