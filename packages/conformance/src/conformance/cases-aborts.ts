import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { waitUntil } from '../hang-up.js';
import { API_KEY, BASE, bearer } from './helpers.js';
import type { ConformanceCase } from './types.js';

const text = (value: string) => new TextEncoder().encode(value);
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A client that sends half a body and hangs up. The request is answered by
 * nobody, reported to `onResponse` as aborted, and is no error. The client
 * hangs up once `verify` has seen the request (the core is about to read the
 * body), or after a second when a host's body parser reads it first.
 */
function hangUpCase(name: string, headers: Record<string, string>): ConformanceCase {
  // Each run sends its own token, so runs of this case never see each other's requests.
  const waiting = new Map<string, () => void>();
  return {
    name,
    rule: 'Client aborts while the body is read end the request quietly: no answer, no onError, onResponse says aborted',
    options: {
      apiKeys: undefined,
      // Signals the client (when it runs in this process) and accepts this case's tokens;
      // a host in another process only takes the second part, and the client hangs up on time.
      verify: (token) => {
        waiting.get(token)?.();
        return token.startsWith(`${API_KEY}-`);
      },
    },
    recordHooks: true,
    run: async ({ send, storage, events }) => {
      const { responses, errors } = events;
      const token = `${API_KEY}-${randomUUID()}`;
      const verified = new Promise<void>((resolve) => waiting.set(token, resolve));
      const res = await send({
        method: 'POST',
        path: `${BASE}/pets`,
        headers: { ...bearer(token), 'content-type': 'application/json', ...headers },
        body: {
          chunks: [text('{"name":"Half a')],
          hangUpAfter: Promise.race([verified, delay(1000)]),
        },
      });
      expect(res.status, 'no answer on the wire').toBe(0);
      await waitUntil(() => responses.length > 0, 10_000);
      expect(responses).toEqual([
        {
          method: 'POST',
          route: '/pets',
          operationId: 'createPet',
          status: 499,
          durationMs: expect.any(Number),
          requestId: 'gone-1',
          aborted: true,
        },
      ]);
      expect(errors).toEqual([]);
      expect(await storage.listPets({ limit: 10 })).toEqual([]);
      waiting.delete(token);
    },
  };
}

export const abortCases: ConformanceCase[] = [
  hangUpCase('aborts: a client that hangs up mid-body (chunked) gets no answer and is no error', {
    'x-request-id': 'gone-1',
  }),
  hangUpCase(
    'aborts: a client that hangs up mid-body (Content-Length) gets no answer and is no error',
    { 'x-request-id': 'gone-1', 'content-length': '200' },
  ),
];
