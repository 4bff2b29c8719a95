import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPetStore } from '@petstore/core';
import { installClientErrorHandler, petStoreListener } from '@petstore/node';
import { createMemoryStorage } from '@petstore/storage-memory';
import { expect, it } from 'vitest';
import {
  describeReport,
  FUZZ_KEY,
  type FuzzHost,
  fuzzRequests,
  matrixHosts,
  runDifferential,
} from '../src/index.js';

/** A host that answers one request of the contract its own way: what the fuzzer must catch. */
const divergent: FuzzHost = {
  name: 'divergent',
  async start() {
    const store = createPetStore({ storage: createMemoryStorage(), apiKeys: [FUZZ_KEY] });
    const api = petStoreListener(store, { mountPath: '/v1' });
    const server = createServer((req, res) => {
      if (req.method === 'GET' && req.url === '/v1/store/orders') {
        res.writeHead(404, {
          'content-type': 'application/json; charset=utf-8',
          'x-request-id': 'x',
        });
        res.end('{"code":"not_found","message":"No orders here.","status":404}');
        return;
      }
      api(req, res);
    });
    installClientErrorHandler(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return {
      port: (server.address() as AddressInfo).port,
      close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    };
  },
};

it('reports a host that answers differently, with the seed that replays it', async () => {
  const seed = 20_261_124;
  const run = () =>
    runDifferential({
      hosts: [...matrixHosts(['node']), divergent],
      requests: fuzzRequests(FUZZ_KEY, 400, seed),
      seed,
    });
  const report = await run();
  expect(report.differences.length).toBeGreaterThan(0);
  expect(report.differences.every((finding) => finding.host === 'divergent')).toBe(true);
  expect(report.differences[0]?.problem).toMatch(
    /node: 200 .*\n {4}divergent: 404 .*code=not_found/,
  );
  const text = describeReport(report, `pnpm fuzz:diff --seed ${seed} --count 400`);
  expect(text).toContain(`replay: pnpm fuzz:diff --seed ${seed} --count 400`);
  // The same seed finds the same requests again.
  const again = await run();
  expect(again.differences.map((finding) => finding.index)).toEqual(
    report.differences.map((finding) => finding.index),
  );
}, 120_000);
