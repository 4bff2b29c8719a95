import { randomBytes } from 'node:crypto';
import pg from 'pg';

export interface TestDatabase {
  /** Connection string of a new, empty database on the same server. */
  readonly url: string;
  /** Drops it, disconnecting whoever is still on it. */
  drop(): Promise<void>;
}

/**
 * A database of its own on the server at `adminUrl`, so a service under test (or under the
 * bench) can use the default schema without meeting anyone else's data.
 */
export async function createTestDatabase(adminUrl: string): Promise<TestDatabase> {
  const name = `petstore_app_${randomBytes(6).toString('hex')}`;
  const admin = async (sql: string): Promise<void> => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE "${name}"`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`),
  };
}
