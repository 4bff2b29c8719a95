import { accessSync, constants, existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';

// The Debian packages the cluster runs on (.ci/run installs them): patroni, etcd-server,
// postgresql-15, haproxy. Without them the cluster's tests are skipped, said once; under CI=true
// that is an error.

const executable = (path: string): boolean => {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/** The first executable `name` in `dirs`, then on PATH, or ''. */
const find = (name: string, dirs: readonly string[]): string =>
  [
    ...dirs.map((dir) => join(dir, name)),
    ...(process.env.PATH ?? '')
      .split(delimiter)
      .filter((dir) => dir !== '')
      .map((dir) => join(dir, name)),
  ].find(executable) ?? '';

export const PATRONI = find('patroni', ['/usr/bin']);
export const PATRONICTL = find('patronictl', ['/usr/bin']);
export const ETCD = find('etcd', ['/usr/bin']);
export const HAPROXY = find('haproxy', ['/usr/sbin', '/usr/local/sbin']);
/** PostgreSQL 15's binaries, as Debian's postgresql-15 installs them (PG_BIN_DIR overrides). */
export const POSTGRES_BIN = process.env.PG_BIN_DIR ?? '/usr/lib/postgresql/15/bin';

/** Why the cluster cannot run here, or undefined. */
export const missingTools: string | undefined = (() => {
  const missing = [
    PATRONI === '' ? 'patroni' : '',
    ETCD === '' ? 'etcd-server' : '',
    existsSync(join(POSTGRES_BIN, 'postgres')) ? '' : 'postgresql-15',
    HAPROXY === '' ? 'haproxy' : '',
  ].filter((name) => name !== '');
  return missing.length === 0
    ? undefined
    : `no ${missing.join(', ')} (apt-get install ${missing.join(' ')})`;
})();

let said = false;
/** True when the cluster can run; otherwise says why once, and throws under CI=true. */
export function toolsPresent(): boolean {
  if (missingTools === undefined) return true;
  if (process.env.CI === 'true') throw new Error(`tools/cluster: ${missingTools}`);
  if (!said) console.warn(`\ntools/cluster tests SKIPPED: ${missingTools}.\n`);
  said = true;
  return false;
}
