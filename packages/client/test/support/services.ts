import { fileURLToPath } from 'node:url';
import type { PetStorage } from '@petstore/core';
import { createPostgresStorage } from '@petstore/storage-postgres';

/** The two example services the client is tested against, run as real processes. */
export const EXAMPLE_APPS = [
  {
    name: 'Express',
    dir: fileURLToPath(new URL('../../../../examples/express-app', import.meta.url)),
  },
  { name: 'Hapi', dir: fileURLToPath(new URL('../../../../examples/hapi-app', import.meta.url)) },
] as const;

/** 16+ characters, as API_KEYS asks. */
export const API_KEY = 'client-test-key-0123456789';

export interface RecordedAttempt {
  readonly at: number;
  readonly method: string;
  readonly url: string;
  readonly idempotencyKey: string | null;
  /** The status, or the error's message when no answer came. */
  readonly outcome: number | string;
}

/**
 * The global fetch (real sockets), recording each attempt: what the client sent and what came
 * back. Passed as the client's `fetch` option.
 */
export function recordingFetch(): { fetch: typeof fetch; attempts: RecordedAttempt[] } {
  const attempts: RecordedAttempt[] = [];
  const recorded: typeof fetch = async (input, init) => {
    const headers = new Headers(init?.headers);
    const base = {
      at: performance.now(),
      method: init?.method ?? 'GET',
      url: String(input),
      idempotencyKey: headers.get('idempotency-key'),
    };
    try {
      const response = await fetch(input, init);
      attempts.push({ ...base, outcome: response.status });
      return response;
    } catch (error) {
      attempts.push({ ...base, outcome: error instanceof Error ? error.message : String(error) });
      throw error;
    }
  };
  return { fetch: recorded, attempts };
}

/** Records orders the way a host application does: through the storage port. */
export async function recordOrders(databaseUrl: string, count: number): Promise<void> {
  const storage: PetStorage = createPostgresStorage({ connectionString: databaseUrl });
  try {
    for (let index = 0; index < count; index++) {
      await storage.createOrder({
        petId: index + 1,
        quantity: 1 + (index % 4),
        shipDate: new Date(Date.UTC(2026, 0, 1 + index)).toISOString(),
        status: (['placed', 'approved', 'delivered'] as const)[index % 3] ?? 'placed',
        complete: index % 2 === 0,
      });
    }
  } finally {
    await storage.close();
  }
}
