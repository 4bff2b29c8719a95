// packages/storage-sqlite/examples/backup.ts
import { backup, createSqliteStorage, migrate } from '@petstore/storage-sqlite';

const path = process.env.PETS_DB ?? 'pets.db';

// What opening does by default, as a deploy step of its own (or `petstore-sqlite migrate pets.db`).
console.log(migrate({ path })); // { applied: ['001_init', '002_idempotency_keys'], version: 2 }, then applied: []

const storage = createSqliteStorage({ path, migrate: false });
await storage.createPet({ name: 'Rex', categoryId: 1, status: 'available' });

// While it serves: a consistent copy, checked, then moved into place (or `petstore-sqlite backup`).
console.log(await backup(storage, `${path}.backup`)); // { destination, bytes, method: 'backup-api' }
await storage.close();

// Restoring is opening the copy (or moving it to the original name while nothing has it open).
const restored = createSqliteStorage({ path: `${path}.backup` });
console.log(await restored.listPets({ limit: 20 })); // [{ id: 1, name: 'Rex', categoryId: 1, status: 'available' }, ...]
await restored.close();
