import { expect, test } from 'vitest';
import { SQL } from '../../packages/storage-sqlite/src/statements.js';
import { BARE_SQLITE_SQL } from '../src/servers/bare-sqlite.js';

test("the bare SQLite route runs the storage's own statements", () => {
  for (const [name, sql] of Object.entries(BARE_SQLITE_SQL)) {
    expect(sql, name).toBe(SQL[name as keyof typeof BARE_SQLITE_SQL]);
  }
});
