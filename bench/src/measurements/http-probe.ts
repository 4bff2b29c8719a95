import { assertLoopback } from '../load.js';

export interface Probe {
  readonly status: number;
  readonly headers: Headers;
  readonly body: string;
}

/** One request, to check what a side answers before loading it. */
export async function probe(url: string, init: RequestInit = {}): Promise<Probe> {
  assertLoopback(url);
  const response = await fetch(url, { ...init, signal: AbortSignal.timeout(10_000) });
  return { status: response.status, headers: response.headers, body: await response.text() };
}

export function expectStatus(what: string, got: Probe, status: number): void {
  if (got.status !== status) {
    throw new Error(`${what}: expected ${status}, got ${got.status}: ${got.body.slice(0, 300)}`);
  }
}
