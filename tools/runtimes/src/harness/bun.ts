import { createHarness } from './app.js';
import { openStorage } from './storages.js';

declare const Bun: {
  serve(options: {
    hostname: string;
    port: number;
    fetch: (request: Request) => Promise<Response>;
  }): { readonly port: number };
};

const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: createHarness(openStorage) });
console.log(`listening ${server.port}`);
