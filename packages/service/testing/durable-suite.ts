import { existsSync, readFileSync, statSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sendHttp } from '@petstore/conformance';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killStartedApps, type ListeningApp, startApp, startListening } from './process.js';

const KEY = 'durable-key-0123456789';
const auth = { authorization: `Bearer ${KEY}` };
const json = { ...auth, 'content-type': 'application/json' };

const create = (app: ListeningApp, name: string, idempotencyKey?: string, key = KEY) => {
  const headers = { ...json, authorization: `Bearer ${key}` };
  return sendHttp(app.origin, {
    method: 'POST',
    path: '/v1/pets',
    headers:
      idempotencyKey === undefined ? headers : { ...headers, 'idempotency-key': idempotencyKey },
    body: JSON.stringify({ name, categoryId: 1 }),
  });
};

const modeOf = (path: string): string => `0${(statSync(path).mode & 0o777).toString(8)}`;

/** The app as `pnpm start` runs it, under the most open umask: files would be 0666, folders 0777. */
const UMASK_0 = {
  command: [
    'sh',
    '-c',
    'umask 000 && exec "$0" "$@"',
    process.execPath,
    '--import',
    'tsx',
    '--conditions=@petstore/source',
    'src/main.ts',
  ],
};

/** Every pet, page by page (the service's own keyset pages). */
async function allPets(app: ListeningApp, key = KEY): Promise<Array<{ id: number; name: string }>> {
  const pets: Array<{ id: number; name: string }> = [];
  let path: string | undefined = '/v1/pets?limit=100';
  for (let page = 0; path !== undefined && page < 100; page++) {
    const headers = { authorization: `Bearer ${key}` };
    const answer = await sendHttp(app.origin, { method: 'GET', path, headers });
    expect(answer.status).toBe(200);
    pets.push(...(JSON.parse(answer.body) as Array<{ id: number; name: string }>));
    path = /<([^>]+)>; rel="next"/.exec(answer.headers.link ?? '')?.[1];
  }
  return pets;
}

const stop = async (app: ListeningApp) => {
  app.signal('SIGTERM');
  expect(await app.exited).toBe(0);
};

/**
 * The service keeps its pets: with DATABASE_URL unset, a SQLite file at the default path (the
 * banner says where); an acknowledged create survives SIGKILL; two services on one file store a
 * keyed create once.
 */
export function describeDurableStorage(name: string, appDir: string): void {
  describe(`the ${name} example app keeps its pets in SQLite`, () => {
    let dir: string;
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'petstore-durable-'));
    });
    // A test that fails midway leaves no service running.
    afterAll(() => {
      killStartedApps();
      return rm(dir, { recursive: true, force: true });
    });

    it('by default (DATABASE_URL unset): the file the banner names, and the pets are there after a restart', async () => {
      const env = { API_KEYS: KEY, DATABASE_URL: '', XDG_DATA_HOME: join(dir, 'xdg') };
      const first = await startListening(appDir, env);
      const file = join(dir, 'xdg', 'petstore', 'pets.db');
      expect(first.output()).toContain(`storage: SQLite file ${file} (the default`);
      const created = await create(first, 'Kept');
      expect(created.status).toBe(201);
      await stop(first);

      const second = await startListening(appDir, env);
      expect((await allPets(second)).map((pet) => pet.name)).toEqual(['Kept']);
      await stop(second);
    }, 60_000);

    it('keeps a generated key beside the default file, and every file there for its owner alone', async () => {
      // A folder that was there already, readable by all, and the most open umask.
      const xdg = join(dir, 'kept');
      const folder = join(xdg, 'petstore');
      await mkdir(folder, { recursive: true });
      await chmod(folder, 0o755);
      const env = { DATABASE_URL: '', XDG_DATA_HOME: xdg };
      const first = await startListening(appDir, env, UMASK_0);
      const keyFile = join(folder, 'api-key');
      expect(first.output()).toContain(
        `API key (generated, kept in ${keyFile}; set API_KEYS to choose your own): ${first.key}`,
      );
      expect((await create(first, 'Kept', undefined, first.key)).status).toBe(201);
      const files = ['api-key', 'pets.db', 'pets.db-wal', 'pets.db-shm'].map((f) =>
        join(folder, f),
      );
      expect([folder, ...files].map(modeOf)).toEqual(['0700', '0600', '0600', '0600', '0600']);
      expect(readFileSync(keyFile, 'utf8').trim()).toBe(first.key);
      await stop(first);

      // Restarted: the same key, printed again, still opens the same pets.
      const second = await startListening(appDir, env, UMASK_0);
      expect(second.key).toBe(first.key);
      expect((await allPets(second, first.key)).map((pet) => pet.name)).toEqual(['Kept']);
      await stop(second);

      // API_KEYS still wins: the kept key is not accepted then, and the file is left alone.
      const chosen = await startListening(appDir, { ...env, API_KEYS: KEY });
      expect(chosen.output()).toContain('API keys: 1 from API_KEYS');
      const withKept = await sendHttp(chosen.origin, {
        method: 'GET',
        path: '/v1/pets',
        headers: { authorization: `Bearer ${first.key}` },
      });
      expect(withKept.status).toBe(401);
      expect((await allPets(chosen)).map((pet) => pet.name)).toEqual(['Kept']);
      expect(readFileSync(keyFile, 'utf8').trim()).toBe(first.key);
      await stop(chosen);
    }, 60_000);

    it('refuses a file named by a link to nothing, and creates nothing there', async () => {
      const target = join(dir, 'not-there.db');
      const link = join(dir, 'dangling.db');
      await symlink(target, link);
      const app = startApp(appDir, { API_KEYS: KEY, DATABASE_URL: `sqlite:${link}` });
      expect(await app.exited).toBe(1);
      expect(app.output()).toContain(
        `${link} is a symbolic link to ${target}, which does not exist`,
      );
      expect(existsSync(target)).toBe(false);
    }, 30_000);

    it('every acknowledged keyed create survives SIGKILL, stored exactly once', async () => {
      const env = { API_KEYS: KEY, DATABASE_URL: `sqlite:${join(dir, 'killed.db')}` };
      const app = await startListening(appDir, env);
      const acknowledged: string[] = [];
      for (let i = 0; i < 40; i++) {
        const answer = await create(app, `pet-${i}`, `key-${i}`);
        if (answer.status === 201) acknowledged.push(`pet-${i}`);
      }
      app.signal('SIGKILL');
      await app.exited;
      expect(acknowledged).toHaveLength(40);

      const again = await startListening(appDir, env);
      // A retry after the crash replays the stored pet rather than making a second one.
      const retried = await create(again, 'pet-0', 'key-0');
      expect(retried.headers['idempotent-replayed']).toBe('true');
      const names = (await allPets(again)).map((pet) => pet.name);
      expect(names.sort()).toEqual([...acknowledged].sort());
      await stop(again);
    }, 60_000);

    it('two services on one file: 50 concurrent keyed creates with one key store one pet', async () => {
      const env = { API_KEYS: KEY, DATABASE_URL: `sqlite:${join(dir, 'shared.db')}` };
      const apps = [await startListening(appDir, env), await startListening(appDir, env)];
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          create(apps[i % 2] as ListeningApp, 'Once', 'one-key'),
        ),
      );
      const statuses = new Set(answers.map((answer) => answer.status));
      // 201 (created or replayed), or 409 while the first was still in flight in the other process.
      expect([...statuses].every((status) => status === 201 || status === 409)).toBe(true);
      const ids = new Set(
        answers
          .filter((a) => a.status === 201)
          .map((a) => (JSON.parse(a.body) as { id: number }).id),
      );
      expect(ids.size).toBe(1);
      for (const app of apps) expect((await allPets(app)).map((pet) => pet.name)).toEqual(['Once']);
      for (const app of apps) await stop(app);
    }, 60_000);
  });
}
