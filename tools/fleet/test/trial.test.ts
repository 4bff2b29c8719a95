import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { freePort } from '@petstore/test-postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { HAPROXY, missingTools } from './balancer.js';

// deploy/README.md's "A trial on one machine", run as written: a real `postgres:try`, then its
// block of two instances, HAProxy filled by fill.mjs and a curl through it, then its stop line.
// Only the ports (free ones, not 3001, 3002, 9465, 9466, 8080) and the scratch folder change.

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const README = readFileSync(join(REPO, 'deploy/README.md'), 'utf8');
const start = README.indexOf('## A trial on one machine');
const section = README.slice(start, README.indexOf('\n## ', start + 1));
const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1] ?? '');
const built = existsSync(join(REPO, 'packages/service/dist/main.js'));
if (!built && process.env.CI === 'true') throw new Error('trial: run `pnpm build` first');

const children: ChildProcess[] = [];
const scratch: string[] = [];
afterAll(async () => {
  for (const child of children) {
    // Each ran as the leader of a group of its own: what it started goes too.
    if (child.pid !== undefined && child.exitCode === null) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
  }
  for (const dir of scratch) await rm(dir, { recursive: true, force: true });
});

/** A shell command in a process group of its own, its output collected. */
function shell(script: string, env: NodeJS.ProcessEnv) {
  const child = spawn('bash', ['-c', script], {
    cwd: REPO,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { child, output: () => output, exited };
}

describe.skipIf(missingTools !== undefined || !built)(
  "deploy/README.md's trial on one machine",
  () => {
    it('finds its three blocks: setup, instances and HAProxy, stop', () => {
      expect(blocks).toHaveLength(3);
      expect(blocks[0]).toContain('npx -y pnpm@10 postgres:try');
      expect(blocks[2]?.trim()).toBe('kill $(jobs -p)');
    });

    it('two instances behind HAProxy over postgres:try: a curl through it stores a pet; the stop line stops them', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'petstore-trial-'));
      scratch.push(dir);
      // Run as root, postgres:try's server runs as the postgres user, which must reach its folder.
      await chmod(dir, 0o711);
      const env = { ...process.env, PATH: `${dirname(HAPROXY)}:${process.env.PATH ?? ''}` };
      // The setup block's PostgreSQL, in a folder of this test's own (the clone is built already).
      const tryLine = (blocks[0] ?? '').split('\n').find((line) => line.includes('postgres:try'));
      const postgres = shell(`exec ${tryLine?.split('#')[0]?.trim()} --dir ${dir}/postgres`, env);
      for (let waited = 0; !/DATABASE_URL=\S+/.test(postgres.output()); waited += 100) {
        if (postgres.child.exitCode !== null || waited > 90_000) {
          throw new Error(`postgres:try did not start:\n${postgres.output()}`);
        }
        await sleep(100);
      }
      const url = /^DATABASE_URL=(\S+)$/m.exec(postgres.output())?.[1] ?? '';

      const ports = new Map<string, string>();
      for (const written of ['3001', '3002', '9465', '9466', '8080']) {
        ports.set(written, String(await freePort()));
      }
      let script = `${blocks[1]}\n${blocks[2]}\nwait\n`
        .replace("'<the DATABASE_URL it printed>'", `'${url}'`)
        .replaceAll('.tmp/', `${dir}/`);
      for (const [written, port] of ports)
        script = script
          .replaceAll(`:${written}`, `:${port}`)
          .replaceAll(`=${written} `, `=${port} `);
      // haproxy.cfg's bind address is its presetenv default (127.0.0.1:8080) unless set.
      const trial = shell(`set -e\n${script}`, {
        ...env,
        PETSTORE_LISTEN: `127.0.0.1:${ports.get('8080')}`,
      });
      const code = await Promise.race([trial.exited, sleep(60_000).then(() => 'timeout')]);
      expect(code, trial.output()).toBe(0);
      expect(trial.output()).toContain('{"id":1,"name":"Rex","categoryId":1,"status":"available"}');
      for (const log of ['instance-1.log', 'instance-2.log']) {
        const text = await readFile(join(dir, log), 'utf8');
        expect(text).toContain('storage: PostgreSQL');
        expect(text).toContain('"exitCode":0,"msg":"stopped"');
      }
      // Ctrl-C in its terminal: SIGINT to the whole group (npx, pnpm, node).
      process.kill(-(postgres.child.pid ?? 0), 'SIGINT');
      // npx itself dies of the signal (no exit code); the server stops first, and says so.
      const stopped = await Promise.race([postgres.exited, sleep(30_000).then(() => 'timeout')]);
      expect(stopped).not.toBe('timeout');
      expect(postgres.output()).toContain('PostgreSQL stopped.');
    }, 180_000);
  },
);
