/** Which server a bench child starts (see entry.ts), as the parent sends it. */
export type ServerSpec =
  | {
      readonly kind:
        | 'express-bare'
        | 'express-ours'
        | 'hapi-bare'
        | 'hapi-ours'
        | 'node-bare'
        | 'node-ours'
        | 'fastify-bare'
        | 'fastify-ours'
        | 'raw-bare'
        | 'raw-ours'
        | 'docs-assets';
    }
  | {
      readonly kind: 'node-ours-postgres' | 'node-bare-postgres';
      readonly databaseUrl: string;
      readonly schema: string;
      readonly poolMax: number;
    }
  | {
      /** A SQLite file, migrated and seeded by the parent (sqlite-seed.ts), one per server. */
      readonly kind: 'node-ours-sqlite' | 'node-bare-sqlite';
      readonly path: string;
    };
