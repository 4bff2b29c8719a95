import { describe, expect, it } from 'vitest';
import { checkNodeVersion, NODE_WITH_NPM } from '../src/node-version.js';

describe('checkNodeVersion', () => {
  it('lets 22.13 and later through', () => {
    for (const version of ['22.13.0', '22.23.1', '23.11.0', '24.0.0', '26.1.0']) {
      expect(checkNodeVersion(version, {})).toBeUndefined();
    }
  });

  it('stops below 22.13 when SQLite is asked for, and says how to get Node with npm, or memory:', () => {
    for (const env of [{}, { DATABASE_URL: '' }, { DATABASE_URL: 'sqlite:./pets.db' }]) {
      const check = checkNodeVersion('22.12.0', { ...env, npm_lifecycle_event: 'start' });
      expect(check).toEqual({
        fatal: true,
        lines: [
          'petstore-service needs Node 22.13 or later: its default storage is SQLite, built into Node (node:sqlite) from 22.13; this is Node 22.12.0.',
          `Get Node 24 with npm alone, then run it again in the same shell: ${NODE_WITH_NPM}`,
          'Or try it on this Node with the pets in memory (gone when it stops): DATABASE_URL=memory: npm start',
        ],
      });
    }
    expect(checkNodeVersion('20.20.2', {})?.lines[2]).toBe(
      'Or try it on this Node with the pets in memory (gone when it stops): DATABASE_URL=memory: petstore-service',
    );
    expect(
      checkNodeVersion('20.20.2', {
        npm_lifecycle_event: 'start',
        npm_execpath: '/root/.npm/_npx/c80dab5832ec79ce/node_modules/pnpm/bin/pnpm.cjs',
      })?.lines[2],
    ).toMatch(/DATABASE_URL=memory: pnpm start$/);
  });

  it('warns and goes on below 22.13 when the storage needs no SQLite', () => {
    for (const url of ['memory:', 'postgres://app@db/pets']) {
      const check = checkNodeVersion('20.20.2', { DATABASE_URL: url });
      expect(check?.fatal).toBe(false);
      expect(check?.lines[0]).toBe(
        'petstore-service: Node 20.20.2 is older than 22.13, the oldest it is tested on; running anyway, since DATABASE_URL needs no SQLite.',
      );
    }
  });

  it('stops below Node 20 whatever the storage, offering nothing but a newer Node', () => {
    const check = checkNodeVersion('18.20.4', { DATABASE_URL: 'memory:' });
    expect(check?.fatal).toBe(true);
    expect(check?.lines).toHaveLength(2);
  });
});
