import { DatabaseSync } from 'node:sqlite';
import { Worker } from 'node:worker_threads';
import { expect, it } from 'vitest';
import { createSqliteStorage } from '../src/index.js';
import { tempFolder } from './support/files.js';

const folder = tempFolder('open-race');

/**
 * A writer in another thread holds the file's RESERVED lock for `holdMs`, from the moment this
 * resolves: the position two processes opening one fresh file at once can find each other in.
 */
async function holdWriteLock(path: string, holdMs: number): Promise<Worker> {
  const worker = new Worker(
    `const { DatabaseSync } = require('node:sqlite');
     const { parentPort, workerData } = require('node:worker_threads');
     const db = new DatabaseSync(workerData.path);
     db.exec('BEGIN IMMEDIATE');
     db.exec('INSERT INTO t VALUES (1)');
     parentPort.postMessage('held');
     setTimeout(() => { db.exec('COMMIT'); db.close(); }, workerData.holdMs);`,
    { eval: true, workerData: { path, holdMs } },
  );
  await new Promise((resolve) => worker.once('message', resolve));
  return worker;
}

// SQLite answers the switch to WAL BUSY at once, without its busy handler, while another
// connection holds the write lock: the storage waits for the lock itself, up to busyTimeoutMs.
// Before, this open failed at once with "locked" (seen in CI: two processes on one fresh file).
it('opens a file whose WAL switch is briefly refused while another writer holds its lock', async () => {
  const path = folder.file();
  const setup = new DatabaseSync(path);
  setup.exec('CREATE TABLE t (v)');
  setup.close();
  const worker = await holdWriteLock(path, 300);
  try {
    const storage = createSqliteStorage({ path, busyTimeoutMs: 5_000 });
    expect(await storage.listPets({ limit: 1 })).toEqual([]);
    await storage.close();
  } finally {
    await worker.terminate();
  }
});

it('still refuses a file whose writer keeps the lock past busyTimeoutMs', async () => {
  const path = folder.file();
  const setup = new DatabaseSync(path);
  setup.exec('CREATE TABLE t (v)');
  setup.close();
  const worker = await holdWriteLock(path, 60_000);
  try {
    expect(() => createSqliteStorage({ path, busyTimeoutMs: 200 })).toThrow(/locked/);
  } finally {
    await worker.terminate();
  }
});
