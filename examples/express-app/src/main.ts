import type { AddressInfo } from 'node:net';
import { createPetStore } from '@petstore/core';
import { createApp } from './app.js';
import { loadConfig } from './config.js';
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

  let stopping = false;
  const app = createApp({ store, storage, stopping: () => stopping });
  const server = app.listen(config.port, config.host);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });

  const url = `http://${urlHost(server.address() as AddressInfo)}:${(server.address() as AddressInfo).port}/v1`;
  const key = config.keyGenerated ? config.apiKeys[0] : '$API_KEY';
  console.log(`pet store listening on ${url}`);
  console.log(`storage: ${description}${seeded > 0 ? `, ${seeded} demo pets created` : ''}`);
  if (config.keyGenerated)
    console.log(`API key (generated, shown once; set API_KEYS to choose your own): ${key}`);
  else console.log(`API keys: ${config.apiKeys.length} from API_KEYS`);
  console.log(`try: curl -H "Authorization: Bearer ${key}" ${url}/pets`);

  const shutdown = (signal: NodeJS.Signals): void => {
    if (stopping) {
      console.log(`${signal} again: exiting now`);
      process.exit(1);
    }
    stopping = true;
    // Connections go as soon as they fall idle (in-flight answers done);
    // whatever still runs after the grace period loses its connection.
    const sweep = setInterval(() => server.closeIdleConnections(), 100);
    const deadline = setTimeout(() => server.closeAllConnections(), config.shutdownTimeoutMs);
    server.close(() => {
      clearInterval(sweep);
      clearTimeout(deadline);
      storage.close().then(
        () => {
          console.log('stopped');
          process.exit(0);
        },
        (error: unknown) => {
          console.error('closing the storage failed:', error);
          process.exit(1);
        },
      );
    });
    // After close(): whoever reads this line can rely on new connections being refused.
    console.log(`${signal}: no new connections; finishing requests in flight`);
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}

main().catch((error: unknown) => {
  console.error('start-up failed:', error instanceof Error ? error.message : error);
  process.exit(1);
});
