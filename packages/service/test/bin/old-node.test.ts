import { sendHttp } from '@petstore/conformance';
import { afterAll, describe, expect, it } from 'vitest';
import { NODE_WITH_NPM } from '../../src/node-version.js';
import { killStartedApps, oldNode, startApp, startListening } from '../../testing/index.js';

// The bin on a Node older than 22.13, as a user with the machine's own Node 20 runs it: a line
// that says what to do before anything else, not "No such built-in module: node:sqlite".
const APP_DIR = new URL('../..', import.meta.url).pathname;
const old = oldNode();
const CI = process.env.CI === 'true';
/** Run straight from a shell, not under a package manager's script (its advice names the bin). */
const AS_RUN_BY_HAND = { npm_lifecycle_event: '', npm_execpath: '' };
afterAll(killStartedApps);

describe.skipIf(old === undefined && !CI)(
  `petstore-service on ${old?.version ?? 'an old Node'}`,
  () => {
    const command = () => {
      if (old === undefined)
        throw new Error('CI needs a Node older than 22.13 (PETSTORE_OLD_NODE or /usr/bin/node)');
      return [old.path, '--import', 'tsx', '--conditions=@petstore/source', 'src/main.ts'];
    };

    it('stops with the Node it needs and how to get it, on the default storage', async () => {
      const app = startApp(
        APP_DIR,
        {
          ...AS_RUN_BY_HAND,
          DATABASE_URL: '',
          XDG_DATA_HOME: '/nonexistent/never-made',
        },
        { command: command() },
      );
      expect(await app.exited).toBe(1);
      const output = app.output();
      expect(output).toContain(
        `petstore-service needs Node 22.13 or later: its default storage is SQLite, built into Node (node:sqlite) from 22.13; this is Node ${old?.version.slice(1)}.`,
      );
      expect(output).toContain(NODE_WITH_NPM);
      expect(output).toContain('DATABASE_URL=memory: petstore-service');
      expect(output).not.toMatch(/node:sqlite'|start-up failed|ERR_/);
    });

    it('serves with DATABASE_URL=memory:, after a warning', async () => {
      const app = await startListening(
        APP_DIR,
        { DATABASE_URL: 'memory:' },
        { command: command() },
      );
      expect(app.output()).toContain('running anyway, since DATABASE_URL needs no SQLite');
      const listed = await sendHttp(app.origin, {
        method: 'GET',
        path: '/v1/pets',
        headers: { authorization: `Bearer ${app.key}` },
      });
      expect(listed.status).toBe(200);
      app.signal('SIGTERM');
      expect(await app.exited).toBe(0);
    });
  },
);
