import type { AddressInfo } from 'node:net';
import { createPetStore } from '@petstore/core';
import { pino } from 'pino';
import { loadConfig } from './config.js';
import { createServer } from './server.js';
import { openStorage, seedPets } from './storage.js';

/** An address a browser or curl on this machine can use, even when bound to every interface. */
function urlHost({ address, family }: AddressInfo): string {
  if (address === '0.0.0.0') return '127.0.0.1';
  if (address === '::') return '[::1]';
  return family === 'IPv6' ? `[${address}]` : address;
}

async function main(): Promise<void> {
  const loaded = loadConfig(process.env);
  if (!loaded.ok) {
    for (const error of loaded.errors) console.error(`config: ${error}`);
    process.exitCode = 1;
    return;
  }
  const config = loaded.config;
  const { storage, description } = await openStorage(config);
  const seeded = await seedPets(storage, config.seedPets);
  const store = createPetStore({ storage, apiKeys: config.apiKeys });
  const server = await createServer({
    store,
    storage,
    host: config.host,
    port: config.port,
    logger: pino(),
  });
  await server.start();

  const address = server.listener.address() as AddressInfo;
  const url = `http://${urlHost(address)}:${address.port}/v1`;
  const key = config.keyGenerated ? config.apiKeys[0] : '$API_KEY';
  console.log(`pet store listening on ${url}`);
  console.log(`storage: ${description}${seeded > 0 ? `, ${seeded} demo pets created` : ''}`);
  if (config.keyGenerated)
    console.log(`API key (generated, shown once; set API_KEYS to choose your own): ${key}`);
  else console.log(`API keys: ${config.apiKeys.length} from API_KEYS`);
  console.log(`try: curl -H "Authorization: Bearer ${key}" ${url}/pets`);

  let stopping = false;
  const shutdown = (signal: NodeJS.Signals): void => {
    if (stopping) {
      console.log(`${signal} again: exiting now`);
      process.exit(1);
    }
    stopping = true;
    // hapi closes idle connections at once, lets requests in flight finish,
    // and cuts what still runs after the timeout.
    server.events.on({ name: 'closing', count: 1 }, () =>
      console.log(`${signal}: no new connections; finishing requests in flight`),
    );
    server
      .stop({ timeout: config.shutdownTimeoutMs })
      .then(() => storage.close())
      .then(
        () => {
          console.log('stopped');
          process.exit(0);
        },
        (error: unknown) => {
          console.error('stopping failed:', error);
          process.exit(1);
        },
      );
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}

main().catch((error: unknown) => {
  console.error('start-up failed:', error instanceof Error ? error.message : error);
  process.exit(1);
});
