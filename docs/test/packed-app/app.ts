// An app outside the repository, as a user writes it from the READMEs: the pet store and its
// reference page on Express, Fastify and Hapi, then the typed client against each. It prints one
// JSON line per host for docs/test/packed-app.test.ts to read.
import type { AddressInfo } from 'node:net';
import Hapi from '@hapi/hapi';
import { apiReferenceRouter } from '@petstore/api-reference/express';
import { apiReferencePlugin as fastifyApiReference } from '@petstore/api-reference/fastify';
import { apiReferencePlugin as hapiApiReference } from '@petstore/api-reference/hapi';
import { createPetStoreClient } from '@petstore/client';
import { createPetStore, type PetStore } from '@petstore/core';
import { petStoreRouter } from '@petstore/express';
import { petStorePlugin as fastifyPetStore } from '@petstore/fastify';
import { petStorePlugin as hapiPetStore } from '@petstore/hapi';
import { createMemoryStorage } from '@petstore/storage-memory';
import express from 'express';
import Fastify from 'fastify';

const apiKey = 'packed-app-key-0123456789';
const newStore = (): PetStore =>
  createPetStore({ storage: createMemoryStorage(), apiKeys: [apiKey] });

/** Each host started on a free loopback port; the origin it answers on and how to stop it. */
type Started = { origin: string; stop: () => Promise<unknown> };

async function onExpress(): Promise<Started> {
  const app = express();
  app.use('/v1', petStoreRouter(newStore()));
  app.use(apiReferenceRouter({ publicPath: '/v1' }));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return { origin: `http://127.0.0.1:${port}`, stop: () => new Promise((r) => server.close(r)) };
}

async function onFastify(): Promise<Started> {
  const app = Fastify();
  await app.register(fastifyPetStore, { store: newStore(), prefix: '/v1' });
  await app.register(fastifyApiReference, { publicPath: '/v1' });
  const origin = await app.listen({ host: '127.0.0.1', port: 0 });
  return { origin, stop: () => app.close() };
}

async function onHapi(): Promise<Started> {
  const server = Hapi.server({ host: '127.0.0.1', port: 0 });
  await server.register(
    { plugin: hapiPetStore, options: { store: newStore() } },
    { routes: { prefix: '/v1' } },
  );
  await server.register({ plugin: hapiApiReference, options: { publicPath: '/v1' } });
  await server.start();
  return { origin: server.info.uri, stop: () => server.stop() };
}

/** What a user sees: a pet created and listed through the client, the page and its first script. */
async function tryHost(host: string, start: () => Promise<Started>) {
  const { origin, stop } = await start();
  try {
    const client = createPetStoreClient({ baseUrl: `${origin}/v1`, apiKey });
    const created = await client.createPet({ name: 'Rex', categoryId: 1 });
    const page = await client.listPets({ limit: 10 });
    const docs = await fetch(`${origin}/docs`);
    const html = await docs.text();
    const script = /<script src="([^"]+)"/.exec(html)?.[1];
    const asset = script === undefined ? undefined : await fetch(new URL(script, `${origin}/docs`));
    return {
      host,
      created: created.name,
      listed: page.items.map((pet) => pet.name),
      docs: docs.status,
      docsType: docs.headers.get('content-type'),
      script,
      asset: asset?.status,
      assetBytes: asset === undefined ? 0 : (await asset.arrayBuffer()).byteLength,
    };
  } finally {
    await stop();
  }
}

for (const [host, start] of [
  ['express', onExpress],
  ['fastify', onFastify],
  ['hapi', onHapi],
] as const) {
  console.log(JSON.stringify(await tryHost(host, start)));
}
