import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { sendHttp } from '@petstore/conformance';
import { createPetStore, type PetStorage } from '@petstore/core';
import { petStoreRouter } from '@petstore/express';
import express from 'express';
import pg from 'pg';
import { expect } from 'vitest';
import { createPostgresStorage } from '../../src/index.js';

// What the outage tests share: the pet store served through Express on 127.0.0.1 over a
// PostgreSQL they stop and start, and ways to see what was really stored.

/** A service over PostgreSQL, as a host runs it: its own pool, its own HTTP server. */
export interface ServedApi {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  readonly storage: PetStorage;
  close(): Promise<void>;
}

export interface ServeOptions {
  readonly connectionString: string;
  readonly apiKey: string;
  /** Default `petstore`; run `migrate()` for it first. */
  readonly schema?: string;
  /** Errors of idle pooled connections, which a server restart produces. */
  readonly onPoolError?: (error: Error) => void;
}

/**
 * Short timeouts, so a stopped server shows as 503s within about a second and a request never
 * hangs past connectionTimeoutMillis + queryTimeoutMillis.
 */
export async function serveApi(options: ServeOptions): Promise<ServedApi> {
  const storage = createPostgresStorage({
    connectionString: options.connectionString,
    connectionTimeoutMillis: 1000,
    queryTimeoutMillis: 2000,
    ...(options.schema === undefined ? {} : { schema: options.schema }),
    ...(options.onPoolError === undefined ? {} : { onPoolError: options.onPoolError }),
  });
  const store = createPetStore({ storage, apiKeys: [options.apiKey] });
  const http = createServer(express().use('/v1', petStoreRouter(store)));
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
    storage,
    async close() {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
      await storage.close();
    },
  };
}

/** Polls `condition` every 10 ms; throws naming `what` after `ms`. */
export async function waitFor(what: string, condition: () => boolean, ms: number): Promise<void> {
  const until = performance.now() + ms;
  while (!condition()) {
    if (performance.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

/** Rows read straight from PostgreSQL on a connection of its own, past the storage under test. */
export async function queryDirect<Row extends pg.QueryResultRow>(
  connectionString: string,
  sql: string,
): Promise<Row[]> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    return (await client.query<Row>(sql)).rows;
  } finally {
    await client.end();
  }
}

/** Every pet name the API lists, walking the `rel="next"` links (at most 100 pages of 100). */
export async function listAllPetNames(origin: string, apiKey: string): Promise<string[]> {
  const listed: string[] = [];
  let path: string | undefined = '/v1/pets?limit=100';
  for (let page = 0; path !== undefined && page < 100; page += 1) {
    const res = await sendHttp(origin, {
      method: 'GET',
      path,
      headers: { authorization: `Bearer ${apiKey}` },
    });
    expect(res.status).toBe(200);
    listed.push(...(JSON.parse(res.body) as { name: string }[]).map((pet) => pet.name));
    path = /<([^>]+)>;\s*rel="next"/.exec(res.headers.link ?? '')?.[1];
  }
  return listed;
}
