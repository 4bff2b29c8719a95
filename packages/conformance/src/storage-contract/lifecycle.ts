import { expect, it } from 'vitest';
import type { Use } from './fixture.js';

/** close(): resolves, and a second call is harmless (hosts close on every shutdown path). */
export function registerLifecycleCases(use: Use): void {
  it(
    'close() resolves and is idempotent',
    use(async (storage) => {
      await storage.createPet({ name: 'Rex', categoryId: 1, status: 'available' });
      await expect(storage.close()).resolves.toBeUndefined();
      await expect(storage.close()).resolves.toBeUndefined();
    }),
  );

  it(
    'concurrent close() calls all resolve',
    use(async (storage) => {
      // Both resolve (a rejection fails here), and to nothing, as close() promises.
      await expect(Promise.all([storage.close(), storage.close()])).resolves.toEqual([
        undefined,
        undefined,
      ]);
    }),
  );
}
