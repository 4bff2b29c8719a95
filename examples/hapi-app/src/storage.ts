// In-memory unless DATABASE_URL is set (PostgreSQL loaded by dynamic import,
// migrated first), and demo seeding: the same for every example app.
// TODO(lead): point this at the shared module.
export { type OpenedStorage, openStorage, seedPets } from '../../express-app/src/storage.js';
