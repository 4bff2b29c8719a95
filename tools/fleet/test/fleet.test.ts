import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { createPetStoreClient, PetStoreError } from '@petstore/client';
import {
  createTestDatabase,
  killStartedApps,
  type ListeningApp,
  startListening,
  type TcpProxy,
  type TestDatabase,
  tcpProxy,
} from '@petstore/service/testing';
import { freePort, type PgBouncer, startPgBouncer } from '@petstore/test-postgres';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { fillDeploy, writeDeploy } from '../../../deploy/fill.mjs';
import { type Haproxy, missingTools, PGBOUNCER, startHaproxy } from './balancer.js';

// Several instances of the example apps behind HAProxy, over PgBouncer (SCRAM) in front of
// PostgreSQL, all configured from deploy/ (filled by deploy/fill.mjs), while clients make
// keyed creates with @petstore/client and the schedule below kills, stops and restarts things.
// Target: no acknowledged create lost or doubled, no row for a call that failed for good, at most
// one for a call whose outcome the client could not know (`outcome_unknown`, counted apart), no
// answer but JSON, at most 0.5% of calls not acknowledged. FLEET_SCALE repeats the 36 s schedule
// (1: CI's run).

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const SCALE = Number(process.env.FLEET_SCALE ?? 1);
const KEY = 'fleet-key-0123456789abcdef';
const CLIENTS = 8;

const appDirs = ['express-app', 'hapi-app', 'express-app'].map((app) =>
  join(ROOT, 'examples', app),
);

interface Fleet {
  readonly db: TestDatabase;
  readonly database: string;
  readonly proxy: TcpProxy;
  bouncer: PgBouncer;
  readonly instances: ListeningApp[];
  readonly haproxy: Haproxy;
  readonly url: string;
  readonly dir: string;
  /** What the instances connect to: PgBouncer, with the role's password. */
  readonly databaseUrl: string;
}

async function startInstance(index: number, databaseUrl: string, port = 0): Promise<ListeningApp> {
  return startListening(appDirs[index] ?? '', {
    API_KEYS: KEY,
    DATABASE_URL: databaseUrl,
    PORT: String(port),
    TRUSTED_PROXIES: '127.0.0.1',
    SHUTDOWN_DELAY_MS: '1500',
    PG_POOL_MAX: '5',
    LOG_LEVEL: 'warn',
  });
}

async function startFleet(): Promise<Fleet> {
  const db = await createTestDatabase(inject('postgresUrl'));
  const database = new URL(db.url).pathname.slice(1);
  const admin = new pg.Client({ connectionString: inject('postgresUrl') });
  await admin.connect();
  const role = `fleet_${database.slice(-8)}`;
  const password = 'fleet-password-0123';
  // SCRAM, as PostgreSQL stores it: PgBouncer checks clients against it and logs in with it.
  await admin.query(`CREATE ROLE "${role}" LOGIN PASSWORD '${password}'`);
  await admin.query(`ALTER DATABASE "${database}" OWNER TO "${role}"`);
  const { rows } = await admin.query<{ secret: string }>(
    'SELECT rolpassword AS secret FROM pg_authid WHERE rolname = $1',
    [role],
  );
  await admin.end();
  const secret = rows[0]?.secret ?? '';
  expect(secret).toMatch(/^SCRAM-SHA-256\$/);

  const server = new URL(inject('postgresUrl'));
  // PostgreSQL "down" is this proxy cut: the shared test server keeps serving other tests.
  const proxy = await tcpProxy({ host: server.hostname, port: Number(server.port) });
  const bouncerPort = await freePort();
  const own = {
    template: fillDeploy({
      database,
      postgres: `127.0.0.1:${proxy.port}`,
      pgbouncerListen: `127.0.0.1:${bouncerPort}`,
      // biome-ignore lint/suspicious/noTemplateCurlyInString: startPgBouncer's placeholder for the auth file it writes.
      authFile: '${AUTH_FILE}',
    })['pgbouncer.ini'],
    values: {},
    authLines: `"${role}" "${secret}"\n`,
  };
  const startBouncer = (port = bouncerPort) =>
    startPgBouncer({
      bin: 'bin' in PGBOUNCER ? PGBOUNCER.bin : '',
      server: `postgres://${role}:${password}@127.0.0.1:${proxy.port}/${database}`,
      own,
      port,
    });
  const pgbouncer = await startBouncer();
  const databaseUrl = `postgres://${role}:${password}@127.0.0.1:${pgbouncer.port}/${database}`;
  const instances: ListeningApp[] = [];
  for (let index = 0; index < appDirs.length; index++) {
    instances.push(await startInstance(index, databaseUrl));
  }

  const dir = await mkdtemp(join(tmpdir(), 'petstore-fleet-'));
  await writeDeploy(dir, { instances: instances.map((app) => new URL(app.origin).host) });
  // HAProxy's request log on its stderr, printed with FLEET_DEBUG.
  const config = join(dir, 'haproxy.cfg');
  const logged = readFileSync(config, 'utf8')
    .replace('\nglobal\n', '\nglobal\n    log stderr format raw local0 info\n')
    .replace('\ndefaults\n', '\ndefaults\n    log global\n    option httplog\n');
  await writeFile(config, logged);
  // Its other settings are the shipped defaults.
  const haproxy = await startHaproxy(config, { PETSTORE_CHECK_INTERVAL: '300ms' });
  const { url } = haproxy;
  const fleet = {
    db,
    database,
    proxy,
    bouncer: pgbouncer,
    instances,
    haproxy,
    url,
    dir,
    databaseUrl,
  };
  return Object.assign(fleet, { restartBouncer: startBouncer });
}

type Outcome = { readonly name: string } & (
  | { readonly ok: true; readonly id: number }
  /** `unknown`: the client threw `outcome_unknown` (stored once or not at all); else a failure for good. */
  | { readonly ok: false; readonly code: string; readonly unknown: boolean }
);

describe.skipIf(missingTools !== undefined)('a fleet behind HAProxy and PgBouncer', () => {
  let fleet: (Fleet & { restartBouncer: (port?: number) => Promise<PgBouncer> }) | undefined;
  afterAll(async () => {
    killStartedApps();
    if (fleet === undefined) return;
    await fleet.haproxy.stop();
    await fleet.bouncer.stop();
    await fleet.proxy.close();
    await fleet.db.drop();
    await rm(fleet.dir, { recursive: true, force: true });
  });

  it(
    'keyed creates through kill -9, SIGTERM, a PgBouncer restart and PostgreSQL down 5 s: none lost, none doubled, only JSON',
    async () => {
      fleet = (await startFleet()) as typeof fleet & object;
      const f = fleet;
      // One cycle of the schedule is 36 s; FLEET_SCALE runs that many, back to back.
      const CYCLE = 36;
      const outcomes: Outcome[] = [];
      const unexpected: string[] = [];
      const started = performance.now();
      const end = started + CYCLE * SCALE * 1000;
      const client = createPetStoreClient({
        baseUrl: `${f.url}/v1`,
        apiKey: KEY,
        retries: 15,
        timeoutMs: 5_000,
      });
      const worker = async (w: number) => {
        for (let n = 0; performance.now() < end; n++) {
          const name = `w${w}-${n}`;
          try {
            const pet = await client.createPet({ name, categoryId: 1 });
            outcomes.push({ name, ok: true, id: pet.id });
          } catch (error) {
            const code = error instanceof PetStoreError ? error.code : String(error);
            if (process.env.FLEET_DEBUG)
              console.log(name, error instanceof Error ? error.message : error);
            if (code === 'unexpected_response') unexpected.push(name);
            outcomes.push({ name, ok: false, code, unknown: code === 'outcome_unknown' });
          }
        }
      };
      const events: string[] = [];
      const note = (what: string) =>
        events.push(`${((performance.now() - started) / 1000).toFixed(1)}s ${what}`);
      const schedule = (async () => {
        const { databaseUrl } = f;
        for (let cycle = 0; cycle < SCALE; cycle++) {
          const until = (seconds: number) =>
            sleep(Math.max(0, started + (cycle * CYCLE + seconds) * 1000 - performance.now()));
          // Each cycle kills and stops other instances than the one before.
          const [k, t] = [cycle % 3, (cycle + 1) % 3];
          await until(4);
          const killed = f.instances[k] as ListeningApp;
          killed.child.kill('SIGKILL');
          note(`kill -9 instance ${k}`);
          await until(7);
          f.instances[k] = await startInstance(k, databaseUrl, Number(new URL(killed.origin).port));
          note(`instance ${k} back`);
          await until(11);
          const stopped = f.instances[t] as ListeningApp;
          stopped.signal('SIGTERM');
          note(`SIGTERM instance ${t}`);
          expect(await stopped.exited).toBe(0);
          await until(15);
          f.instances[t] = await startInstance(
            t,
            databaseUrl,
            Number(new URL(stopped.origin).port),
          );
          note(`instance ${t} back`);
          await until(19);
          await f.bouncer.stop();
          note('PgBouncer stopped');
          f.bouncer = await f.restartBouncer(f.bouncer.port);
          note('PgBouncer back');
          await until(24);
          await f.proxy.cut();
          note('PostgreSQL down');
          await until(29);
          await f.proxy.restore();
          note('PostgreSQL back');
        }
      })();
      await Promise.all([schedule, ...Array.from({ length: CLIENTS }, (_, w) => worker(w))]);

      // What PostgreSQL holds, straight from the server (not through the fleet).
      const check = new pg.Client({ connectionString: f.db.url });
      check.on('error', () => undefined);
      await check.connect();
      const { rows } = await check.query<{ name: string; ids: string[] }>(
        'SELECT name, array_agg(id::text) AS ids FROM petstore.pets GROUP BY name',
      );
      const stored = new Map(rows.map((row) => [row.name, row.ids.map(Number)]));
      const acked = outcomes.filter((o): o is Outcome & { ok: true; id: number } => o.ok);
      const notAcked = outcomes.filter(
        (o): o is Outcome & { ok: false; code: string; unknown: boolean } => !o.ok,
      );
      const failed = notAcked.filter((o) => !o.unknown);
      const unknown = notAcked.filter((o) => o.unknown);
      const lost = acked.filter((o) => stored.get(o.name)?.[0] !== o.id);
      const doubled = [...stored].filter(([, ids]) => ids.length > 1);
      const storedForFailed = failed.filter((o) => stored.has(o.name));
      const unknownStored = unknown.filter((o) => stored.has(o.name));
      const byCode: Record<string, number> = {};
      for (const o of failed) byCode[o.code] = (byCode[o.code] ?? 0) + 1;
      console.log(
        `fleet (scale ${SCALE}): ${outcomes.length} calls, ${acked.length} acknowledged, ${lost.length} lost, ` +
          `${doubled.length} doubled, ${failed.length} failed ${JSON.stringify(byCode)}, ` +
          `${storedForFailed.length} stored for a failed call, ${unknown.length} of unknown outcome ` +
          `(${unknownStored.length} stored, once), ${unexpected.length} non-JSON answers\n  ${events.join('\n  ')}`,
      );
      if (process.env.FLEET_DEBUG)
        console.log(f.haproxy.output().split('\n').slice(0, 60).join('\n'));
      for (const [n, app] of f.instances.entries()) {
        const problems = app.logLines().filter((line) => Number(line.level) >= 50);
        if (problems.length > 0)
          console.log(`instance ${n}: ${JSON.stringify(problems.slice(0, 3))}`);
      }
      expect(acked.length).toBeGreaterThan(100);
      expect(lost).toEqual([]);
      // Unknown ones stored twice would be doubled: the check above covers every name.
      expect(doubled).toEqual([]);
      expect(storedForFailed).toEqual([]);
      expect(unexpected).toEqual([]);
      expect(notAcked.length).toBeLessThanOrEqual(outcomes.length * 0.005);

      // The same key from 50 callers at once, spread over the instances: one pet.
      const raceKey = `race-${Date.now()}`;
      const race = await Promise.all(
        Array.from({ length: 50 }, () =>
          client.createPet({ name: 'race', categoryId: 1 }, { idempotencyKey: raceKey }),
        ),
      );
      const raced = await check.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM petstore.pets WHERE name = 'race'",
      );
      await check.end();
      console.log(
        `race: ${new Set(race.map((pet) => pet.id)).size} id for 50 callers, ${raced.rows[0]?.n} row`,
      );
      expect(new Set(race.map((pet) => pet.id)).size).toBe(1);
      expect(raced.rows[0]?.n).toBe(1);
    },
    120_000 * SCALE,
  );
});
