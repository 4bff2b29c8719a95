import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** Whether `path` is a file this process may run. */
export const executable = (path: string): boolean => {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/**
 * The first executable `name` in `dirs` (Debian's sbin, off most users' PATH), then on PATH; ''
 * when there is none. For the Debian tools the tests and the bench run (haproxy, pgbouncer).
 */
export function findExecutable(
  name: string,
  dirs: readonly string[] = ['/usr/sbin', '/usr/local/sbin'],
  env: NodeJS.ProcessEnv = process.env,
): string {
  const onPath = (env.PATH ?? '').split(delimiter).filter((dir) => dir !== '');
  return [...dirs, ...onPath].map((dir) => join(dir, name)).find(executable) ?? '';
}
