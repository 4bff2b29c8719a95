import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const PACKAGE = fileURLToPath(new URL('../../', import.meta.url));

/**
 * A Node process of its own running one of this folder's TypeScript scripts against the
 * storage's sources (tsx, the `@petstore/source` condition), on the Node running the tests.
 */
export function spawnScript(
  script: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): ChildProcess {
  return spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      '--conditions=@petstore/source',
      fileURLToPath(new URL(script, import.meta.url)),
      ...args,
    ],
    { cwd: PACKAGE, env, stdio: ['pipe', 'pipe', 'pipe'] },
  );
}

/** Lines a child writes, as they come, and its stderr for failure messages. */
export function linesOf(child: ChildProcess): {
  readonly lines: string[];
  readonly stderr: () => string;
  next(predicate: (line: string) => boolean): Promise<string>;
  readonly exited: Promise<unknown>;
} {
  const lines: string[] = [];
  const waiting: { predicate: (line: string) => boolean; resolve: (line: string) => void }[] = [];
  let stderr = '';
  let partial = '';
  const exited = once(child, 'exit');
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    const parts = (partial + chunk).split('\n');
    partial = parts.pop() ?? '';
    for (const line of parts) {
      lines.push(line);
      for (const waiter of waiting.splice(0)) {
        if (waiter.predicate(line)) waiter.resolve(line);
        else waiting.push(waiter);
      }
    }
  });
  return {
    lines,
    stderr: () => stderr,
    exited,
    next: (predicate) => {
      const found = lines.find(predicate);
      if (found !== undefined) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        waiting.push({ predicate, resolve });
        exited.then(() => reject(new Error(`the child exited first; stderr:\n${stderr}`)));
      });
    },
  };
}
