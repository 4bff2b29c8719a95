import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, closeSync, constants, openSync } from 'node:fs';
import { join } from 'node:path';

/** Whether this process can write `path` (a file: opened for writing; a folder: a file made in it). */
export function canWrite(path: string, isFolder: boolean): boolean {
  try {
    if (isFolder) {
      const probe = join(path, `.probe-${process.pid}`);
      closeSync(openSync(probe, 'w'));
      execFileSync('rm', ['-f', probe]);
    } else {
      closeSync(openSync(path, constants.O_WRONLY));
    }
    return true;
  } catch {
    return false;
  }
}

/**
 * Makes `path` really read-only for this process, or says why it cannot: permission bits first
 * (`chmod a-w`); as root, where those do not stop writes, the immutable attribute (`chattr +i`,
 * which binds root too) where the file system and capabilities allow it. `undo` puts it back.
 */
export function makeReadOnly(
  path: string,
  isFolder: boolean,
): { readonly undo: () => void } | { readonly impossible: string } {
  chmodSync(path, isFolder ? 0o555 : 0o444);
  if (!canWrite(path, isFolder)) return { undo: () => chmodSync(path, isFolder ? 0o755 : 0o644) };
  try {
    execFileSync('chattr', ['+i', path], { stdio: 'pipe' });
  } catch (error) {
    chmodSync(path, isFolder ? 0o755 : 0o644);
    return {
      impossible: `running as uid ${process.getuid?.()}, where permission bits do not stop writes, and chattr +i failed (${String(error).split('\n')[0]})`,
    };
  }
  const undo = () => {
    execFileSync('chattr', ['-i', path]);
    chmodSync(path, isFolder ? 0o755 : 0o644);
  };
  if (canWrite(path, isFolder)) {
    undo();
    return { impossible: 'neither chmod nor chattr +i stopped this process writing' };
  }
  return { undo };
}

/**
 * Another program holding `path` locked: a node process of its own with node:sqlite, in a
 * transaction begun with `BEGIN EXCLUSIVE` and a write, until `release()` (or `releaseAfterMs`).
 */
export async function holdLock(
  path: string,
  options: { readonly wal: boolean; readonly releaseAfterMs?: number },
): Promise<{ readonly child: ChildProcess; release(): Promise<void> }> {
  const script = `
    const { DatabaseSync } = require('node:sqlite');
    const db = new DatabaseSync(process.argv[1]);
    db.exec(${JSON.stringify(options.wal ? 'PRAGMA journal_mode = WAL' : 'PRAGMA journal_mode = DELETE')});
    db.exec('BEGIN EXCLUSIVE');
    db.exec('CREATE TABLE IF NOT EXISTS holder (x INTEGER)');
    db.exec('INSERT INTO holder VALUES (1)');
    process.stdout.write('locked\\n');
    const release = () => { db.exec('COMMIT'); db.close(); process.stdout.write('released\\n'); process.exit(0); };
    process.stdin.on('data', release);
    ${options.releaseAfterMs === undefined ? '' : `setTimeout(release, ${options.releaseAfterMs});`}
  `;
  const child = spawn(process.execPath, ['-e', script, path], {
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  // Resolves however it ends: released, by its own timer, or killed.
  const exited = once(child, 'exit');
  // A holder that has already let go and exited may close its stdin before `release()` writes.
  child.stdin?.on('error', () => undefined);
  let output = '';
  child.stdout?.setEncoding('utf8');
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: string) => {
      output += chunk;
      if (output.includes('locked')) resolve();
    });
    child.once('exit', (code) =>
      reject(new Error(`the lock holder exited (${code}) before locking`)),
    );
  });
  return {
    child,
    async release() {
      child.stdin?.end('go\n');
      await exited;
    },
  };
}
