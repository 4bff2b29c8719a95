/**
 * The Express example app side by side, one run, interleaved rounds: tracing unset against
 * the same app from another checkout (the release before tracing, built there), and tracing
 * on (exporting to a local OTLP receiver that drops what it gets). Server CPU per request and
 * req/s of `GET /v1/pets?limit=20`, memory storage, 20 connections.
 *
 *   node --conditions=@petstore/source --import tsx src/app-tracing.ts /path/to/old/checkout [seconds] [rounds]
 *
 * Each app runs compiled (`dist/main.js`, run `pnpm build` in both checkouts), pinned to the
 * server core like every bench server; only 127.0.0.1 is loaded.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LOAD_CPU, pinnedCommand, pinSelf, SERVER_CPU } from './cpu.js';
import { withCpu } from './cpu-usage.js';
import { load } from './load.js';
import { median } from './stats.js';

const before = process.argv[2];
if (before === undefined)
  throw new Error('usage: app-tracing.ts <old checkout> [seconds] [rounds]');
const seconds = Number(process.argv[3] ?? 5);
const rounds = Number(process.argv[4] ?? 4);
const KEY = 'bench-tracing-key-0123456789';
const here = fileURLToPath(new URL('../..', import.meta.url));

/** A receiver that answers every export and keeps nothing. */
const sink = createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
});
await new Promise<void>((done) => sink.listen(0, '127.0.0.1', done));
const otlp = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;

interface App {
  readonly label: string;
  readonly child: ChildProcess;
  readonly origin: string;
}

async function start(label: string, root: string, env: Record<string, string>): Promise<App> {
  const main = join(resolve(root), 'examples/express-app/dist/main.js');
  const [command, args] = pinnedCommand(SERVER_CPU, process.execPath, [main]);
  const child = spawn(command, args, {
    env: {
      PATH: process.env.PATH ?? '',
      PORT: '0',
      MANAGEMENT_PORT: '0',
      API_KEYS: KEY,
      SEED_PETS: '100',
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const origin = await new Promise<string>((found, failed) => {
    let text = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const match = /listening on (http:\/\/[^/\s]+)/.exec(text);
      if (match?.[1] !== undefined) found(match[1]);
    });
    child.once('exit', (code) => failed(new Error(`${label} exited ${code}: ${text}`)));
  });
  child.stdout?.resume();
  return { label, child, origin };
}

pinSelf(LOAD_CPU);
const apps = [
  await start('before (no tracing code)', before, {}),
  await start('tracing unset', here, {}),
  await start('tracing on', here, {
    OTEL_EXPORTER_OTLP_ENDPOINT: otlp,
    OTEL_SERVICE_NAME: 'bench',
  }),
];
const spec = (app: App, run: number) => ({
  url: `${app.origin}/v1/pets?limit=20`,
  method: 'GET' as const,
  headers: { authorization: `Bearer ${KEY}` },
  connections: 20,
  seconds: run,
});
const figures = new Map<string, { rps: number[]; cpu: number[] }>(
  apps.map((app) => [app.label, { rps: [], cpu: [] }]),
);
try {
  for (const app of apps) await load(spec(app, 3)); // warm-up
  for (let round = 0; round < rounds; round++) {
    // Each round starts with another app, so drift falls on all of them alike.
    for (const app of [...apps.slice(round % apps.length), ...apps.slice(0, round % apps.length)]) {
      const pid = app.child.pid ?? 0;
      const { result, cpu } = await withCpu(pid, () => load(spec(app, seconds)));
      if (result.failures > 0) throw new Error(`${app.label}: ${result.failures} failed requests`);
      const entry = figures.get(app.label);
      entry?.rps.push(result.rps);
      if (cpu.process !== undefined) entry?.cpu.push((cpu.process * 1e6) / result.requests);
      process.stderr.write(
        `round ${round + 1}/${rounds} ${app.label}: ${Math.round(result.rps)} req/s\n`,
      );
    }
  }
} finally {
  for (const app of apps) app.child.kill('SIGTERM');
  sink.close();
}
const base = figures.get(apps[0]?.label ?? '');
process.stdout.write(
  '| app | req/s (median) | server CPU µs/request | vs before |\n|---|---|---|---|\n',
);
for (const [label, { rps, cpu }] of figures) {
  const ratio = base === undefined ? Number.NaN : median(cpu) / median(base.cpu);
  process.stdout.write(
    `| ${label} | ${Math.round(median(rps))} | ${median(cpu).toFixed(1)} | CPU x${ratio.toFixed(3)}, req/s x${(median(rps) / median(base?.rps ?? [1])).toFixed(3)} |\n`,
  );
}
