import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { killStartedApps, startListening } from '@petstore/service/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { codeBlocks, REPO, readmes } from './readmes.js';

// Every shell block of every README.md that calls curl runs, as written,
// against a freshly started example app (the real process, as `pnpm start`
// runs it), with the README's address swapped for the app's. Each curl must
// reach a route (no 404 from a stale path), be let in when it sends a key
// (no 401 from a wrong key) and get no 5xx.
const KEYS = ['my-secret-key-4f9a2c71'];
/** The Hapi READMEs' commands run against the Hapi app, the others against the Express one. */
const appFor = (file: string) =>
  join(REPO, 'examples', file.includes('hapi') ? 'hapi-app' : 'express-app');
// deploy/README.md's curl goes through HAProxy in front of instances its block starts itself:
// tools/fleet/test/trial.test.ts runs it so.
const blocks = readmes()
  .filter((file) => file !== 'deploy/README.md')
  .flatMap((file) => codeBlocks(file, ['sh', 'bash', 'shell']))
  .filter((block) => /(^|\s)curl\s/m.test(block.code));

/** Wraps curl so each call reports its status and whether it sent a key. */
const PRELUDE = `set -euo pipefail
curl() {
  local auth=no
  for arg in "$@"; do case "$arg" in [Aa]uthorization:*) auth=yes ;; esac; done
  command curl -sS --max-time 10 "$@" -w "\\n@@ status=%{http_code} auth=$auth\\n"
}
`;

interface Call {
  readonly status: number;
  readonly auth: boolean;
}

afterEach(() => killStartedApps());

describe('curl in the READMEs', () => {
  it('finds the blocks (none found would make this suite vacuous)', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(4);
  });

  it.each(blocks.map((block) => ({ ...block, name: `${block.file}:${block.line}` })))(
    '$name runs against a started app',
    async ({ file, code }) => {
      const app = await startListening(appFor(file), { API_KEYS: KEYS.join(','), SEED_PETS: '5' });
      const script = code
        .replaceAll('http://127.0.0.1:3000', app.origin)
        .replaceAll('http://127.0.0.1:9464', app.management ?? 'http://management-off')
        .replace(/^KEY=.*$/m, `KEY=${KEYS[0]}`);
      const { stdout } = await promisify(execFile)('bash', ['-c', PRELUDE + script], {
        env: { ...process.env, KEY: KEYS[0] },
        timeout: 60_000,
      });
      const calls: Call[] = [...stdout.matchAll(/@@ status=(\d+) auth=(yes|no)/g)].map((m) => ({
        status: Number(m[1]),
        auth: m[2] === 'yes',
      }));
      expect(calls.length, stdout).toBe((script.match(/(^|\s)curl\s/gm) ?? []).length);
      for (const call of calls) {
        expect(call.status, stdout).toBeGreaterThanOrEqual(200);
        expect(call.status, stdout).toBeLessThan(500);
        expect(call.status, stdout).not.toBe(404);
        if (call.auth) expect(call.status, stdout).not.toBe(401);
      }
    },
    60_000,
  );
});
