/**
 * What the worst 16 KiB request bodies cost the core against a plain body of the same size,
 * in CPU per call of `handle()` (the body is read, parsed and checked before validation refuses
 * it). Rounds interleaved, the median of each side; exits 1 when a worst body costs more than
 * MAX_RATIO times the plain one.
 *   node --conditions=@petstore/source --import tsx src/body-cost.ts [rounds] [seconds]
 */
import { cpuUsage } from 'node:process';
import { DEFAULT_API_PATH, type PetStore, type PetStoreRequest } from '@petstore/core';
import { AUTHORIZATION } from './fixtures.js';
import { loopStore, seededMemoryStorage } from './servers/ours.js';
import { median } from './stats.js';

const MAX_RATIO = 5;
const SIZE = 16 * 1024 - 8;
const rounds = Number(process.argv[2] ?? 5);
const seconds = Number(process.argv[3] ?? 1);

/** `[item,item,...]` as long as fits in `SIZE` bytes. */
const filled = (item: string): string =>
  `[${Array.from({ length: Math.floor((SIZE - 2) / (item.length + 1)) }, () => item).join(',')}]`;

const BODIES: Record<string, string> = {
  'plain: small integers': filled('1'),
  'worst: 1e308 literals': filled('1e308'),
  'worst: one long literal': `{"name":"Rex","categoryId":1.${'0'.repeat(SIZE - 40)}1}`,
  // Each unknown key is a problem; the answer names 20 and counts the rest (about 13 KB).
  'worst: 1,300 unknown keys': `{"name":"Rex","categoryId":1,${Array.from(
    { length: 1300 },
    (_, i) => `"k${String(i).padStart(4, '0')}":1`,
  ).join(',')}}`,
  'worst: rounded literals under many keys': `{${Array.from(
    { length: Math.floor(SIZE / 30) },
    (_, i) => `"k${String(i).padStart(5, '0')}":1.0000000000000001`,
  ).join(',')}}`,
};

const request = (body: string): PetStoreRequest => ({
  method: 'POST',
  path: '/pets',
  query: '',
  headers: {
    authorization: AUTHORIZATION,
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(body)),
  },
  body: Buffer.from(body),
  publicPath: DEFAULT_API_PATH,
});

/** CPU µs per call, calls one after another for `seconds`. */
async function cpuPerCall(store: PetStore, body: string): Promise<number> {
  const deadline = performance.now() + seconds * 1000;
  const before = cpuUsage();
  let calls = 0;
  while (performance.now() < deadline) {
    const answer = await store.handle(request(body));
    if (answer.status !== 400) throw new Error(`expected 400, got ${answer.status}`);
    calls++;
  }
  const used = cpuUsage(before);
  return (used.user + used.system) / calls;
}

const store = loopStore(await seededMemoryStorage());
const names = Object.keys(BODIES);
const samples = new Map(names.map((name) => [name, [] as number[]]));
for (let round = 1; round <= rounds; round++) {
  const order = round % 2 === 1 ? names : [...names].reverse();
  for (const name of order) samples.get(name)?.push(await cpuPerCall(store, BODIES[name] ?? ''));
  process.stderr.write(`round ${round}/${rounds} done\n`);
}
const plain = median(samples.get(names[0] ?? '') ?? []);
let failed = false;
for (const name of names) {
  const micros = median(samples.get(name) ?? []);
  const ratio = micros / plain;
  const verdict =
    name === names[0] ? '' : ratio <= MAX_RATIO ? ' (<= 5x: holds)' : ' (> 5x: FAILS)';
  if (ratio > MAX_RATIO) failed = true;
  process.stdout.write(
    `${name.padEnd(42)} ${micros.toFixed(1).padStart(9)} µs CPU/call  ${ratio.toFixed(2)}x${verdict}\n`,
  );
}
process.exitCode = failed ? 1 : 0;
