import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { sendHttp } from '@petstore/conformance';
import { afterAll, describe, expect, it } from 'vitest';
import { killStartedApps, startListening } from './process.js';

export interface CompiledSuiteOptions {
  /** For test titles: `Express`, `Hapi`. */
  readonly name: string;
  /** The app's directory (where `dist/main.js` is once built). */
  readonly appDir: string;
}

/**
 * `pnpm build` then `node dist/main.js`: the production command runs compiled JavaScript in one
 * node process, with no tsx and no source condition (workspace packages from their `dist`).
 * Skipped before a build (tests never need one); CI builds first.
 */
export function describeCompiledApp({ name, appDir }: CompiledSuiteOptions): void {
  afterAll(killStartedApps);
  const main = join(appDir, 'dist', 'main.js');

  describe(`the ${name} example app compiled (node dist/main.js)`, () => {
    it.skipIf(!existsSync(main))(
      'serves the API and health checks, and stops on SIGTERM with exit 0',
      async () => {
        const app = await startListening(
          appDir,
          { API_KEYS: 'compiled-key-0123456789' },
          { command: [process.execPath, main] },
        );
        const created = await sendHttp(app.origin, {
          method: 'POST',
          path: '/v1/pets',
          headers: {
            authorization: 'Bearer compiled-key-0123456789',
            'content-type': 'application/json',
          },
          body: '{"name":"Built","categoryId":1}',
        });
        expect(created.status).toBe(201);
        const live = await sendHttp(app.origin, { method: 'GET', path: '/healthz' });
        expect(live.status).toBe(200);
        // Only node: no tsx loader in the command line of the process that answered.
        expect(app.child.spawnargs).toEqual([process.execPath, main]);
        app.signal('SIGTERM');
        expect(await app.exited).toBe(0);
        expect(app.logLines().at(-1)).toMatchObject({ msg: 'stopped', exitCode: 0 });
      },
    );
  });
}
