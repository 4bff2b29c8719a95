import { execFileSync } from 'node:child_process';
import { MIN_NODE } from '../src/node-version.js';

const older = (version: string): boolean => {
  const [major = 0, minor = 0] = version.replace(/^v/, '').split('.').map(Number);
  return major < MIN_NODE[0] || (major === MIN_NODE[0] && minor < MIN_NODE[1]);
};

const versionOf = (node: string): string | undefined => {
  try {
    return execFileSync(node, ['--version'], { encoding: 'utf8', timeout: 10_000 }).trim();
  } catch {
    return undefined;
  }
};

/**
 * A Node older than the service's floor to run it under, as a user on such a machine would:
 * PETSTORE_OLD_NODE, else the machine's own `/usr/bin/node` (Node 20 on this project's
 * machines) when it is older. Undefined when there is none.
 */
export function oldNode(): { readonly path: string; readonly version: string } | undefined {
  for (const path of [process.env.PETSTORE_OLD_NODE, '/usr/bin/node']) {
    if (path === undefined || path === '') continue;
    const version = versionOf(path);
    if (version !== undefined && older(version)) return { path, version };
  }
  return undefined;
}
