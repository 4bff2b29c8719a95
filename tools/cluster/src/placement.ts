// Where each process of a cluster or a fleet runs and is reached. By default everything is on
// 127.0.0.1 in this network namespace, with ports of its own; tools/partition puts each process
// in a network namespace of its own (its `prefix` is `ip netns exec <ns>`), at an address of
// that namespace, with the usual ports.

/** Where a process runs: the address it listens on and is reached at, and how it is started. */
export interface Place {
  readonly host: string;
  /** Put before its command line (`ip netns exec <ns>`); empty: started here, as it is. */
  readonly prefix: readonly string[];
}

/** A PostgreSQL node: reached by HAProxy and clients at `host`, by the other nodes at `peerHost`. */
export interface NodePlace extends Place {
  readonly peerHost: string;
}

export interface ClusterPlacement {
  readonly etcd: Place;
  readonly nodes: readonly [NodePlace, NodePlace, NodePlace];
  /** HAProxy's leader and replica ports. */
  readonly haproxy: Place;
  /** Where the nodes, HAProxy and the instances connect from (pg_hba), as a CIDR. */
  readonly network: string;
}

export const HERE: Place = { host: '127.0.0.1', prefix: [] };

/** A user to run as: its ids. */
export interface RunAs {
  readonly uid: number;
  readonly gid: number;
}

/**
 * The command to spawn for `argv` at `place`, as `user` when given: with no prefix, `argv` itself
 * and the ids for spawn's options; with one (it must run as root: `ip netns exec`), the prefix,
 * then `setpriv` to drop to the user, then `argv`, all of them exec'ing in turn, so the PID
 * spawn returns is the program's own.
 */
export function launch(
  place: Place,
  argv: readonly string[],
  user?: RunAs,
): { command: string; args: string[]; ids: RunAs | undefined } {
  if (place.prefix.length === 0) {
    const [command = '', ...args] = argv;
    return { command, args, ids: user };
  }
  const drop =
    user === undefined
      ? []
      : ['setpriv', `--reuid=${user.uid}`, `--regid=${user.gid}`, '--clear-groups'];
  const [command = '', ...args] = [...place.prefix, ...drop, ...argv];
  return { command, args, ids: undefined };
}
