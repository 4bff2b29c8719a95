/** Servers that need nothing but their kind: memory storage, or no storage at all. */
export type PlainServerKind =
  | 'express-bare'
  | 'express-ours'
  | 'hapi-bare'
  | 'hapi-ours'
  | 'node-ours'
  | 'fastify-ours'
  | 'raw-bare'
  | 'raw-ours'
  | 'node-peer'
  | 'fastify-peer'
  | 'docs-assets';

/** Which server a bench child starts (see entry.ts), as the parent sends it. */
export type ServerSpec =
  | { readonly kind: PlainServerKind }
  | {
      readonly kind: 'node-ours-postgres' | 'node-peer-postgres';
      readonly databaseUrl: string;
      readonly schema: string;
      readonly poolMax: number;
      /** The peer's pg statements by name (prepared once per connection); off through PgBouncer. */
      readonly namedStatements?: boolean;
    }
  | {
      /** A SQLite file, migrated and seeded by the parent (sqlite-seed.ts), one per server. */
      readonly kind: 'node-ours-sqlite' | 'node-bare-sqlite';
      readonly path: string;
    };
