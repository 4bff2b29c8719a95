import { migrate } from '@petstore/storage-postgres';
import { dropSchema, hostPool, postgresUrl, uniqueSchema } from '@petstore/test-postgres/vitest';
import { afterAll } from 'vitest';
import type { PrepareStorage } from './store-host.js';

/**
 * A new migrated schema per case on the run's PostgreSQL, opened by the runtime with its own
 * `pg` pool; dropped when the case is done. Call in a test file (it registers the clean-up).
 */
export function postgresStorage(prefix: string): PrepareStorage {
  const admin = hostPool();
  afterAll(() => admin.end());
  return async () => {
    const schema = uniqueSchema(prefix);
    await migrate({ pool: admin, schema });
    return {
      spec: { kind: 'postgres', url: postgresUrl(), schema },
      dispose: () => dropSchema(admin, schema),
    };
  };
}
