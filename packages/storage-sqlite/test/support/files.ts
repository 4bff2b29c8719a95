import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

/**
 * A folder of this test file's own under the system's temporary folder, removed (with every
 * database, WAL and copy in it) after the file's tests. `file()` names a new database in it.
 */
export function tempFolder(label: string): { readonly dir: string; file(name?: string): string } {
  const dir = mkdtempSync(join(tmpdir(), `petstore-sqlite-${label}-`));
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  let count = 0;
  return {
    dir,
    file: (name) => {
      count += 1;
      return join(dir, name ?? `${count}.db`);
    },
  };
}
