export { executable, findExecutable } from './executables.js';
export { createTestDatabase, type TestDatabase } from './new-database.js';
export { fillTemplate, findPgBouncer, type PgBouncer, startPgBouncer } from './pgbouncer.js';
export {
  freePort,
  type PostgresServer,
  type StartOptions,
  serverUser,
  startPostgresServer,
} from './postgres-server.js';
