import { runStorageContract } from '@petstore/conformance';
import { dropSchema, hostPool, postgresUrl, uniqueSchema } from '@petstore/test-postgres/vitest';
import { afterAll } from 'vitest';
import { createPostgresStorage, migrate } from '../src/index.js';

// Every case gets a fresh schema, migrated from scratch, and drops it afterwards.
const admin = hostPool();
afterAll(() => admin.end());

runStorageContract({
  name: 'postgres (host pool)',
  create: async () => {
    const schema = uniqueSchema('contract');
    await migrate({ pool: admin, schema });
    return {
      storage: createPostgresStorage({ pool: admin, schema }),
      cleanup: () => dropSchema(admin, schema),
    };
  },
});

runStorageContract({
  name: 'postgres (storage-owned pool)',
  create: async () => {
    const schema = uniqueSchema('contract');
    await migrate({ pool: admin, schema });
    return {
      storage: createPostgresStorage({ connectionString: postgresUrl(), schema }),
      cleanup: () => dropSchema(admin, schema),
    };
  },
});
