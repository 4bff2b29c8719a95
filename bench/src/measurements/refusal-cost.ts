/**
 * The cost of a refusal beside the cost of a request, for an instance alone on memory (the
 * past-capacity measurement's third case): server CPU per answer, each on a fresh instance under
 * the same quota, closed loop. Four answers:
 *
 * - a request: `GET /v1/pets?limit=20`, 200;
 * - a shed refusal: the same request answered 503 by load shedding (every request shed:
 *   `LOAD_SHEDDING_MAX_HEAP_USED_BYTES=1`), after node:http parsed it, logged as the service logs
 *   it (one `warn` line);
 * - the same, not logged (`LOG_LEVEL=error`): what the log line costs;
 * - the same on a new connection each (`Connection: close`): what every refusal would cost if the
 *   service closed idle keep-alive connections while shedding;
 * - a refusal at accept, before the HTTP parser: a new connection while the instance sheds load,
 *   answered the JSON 503 and closed (the service's shed-at-accept.ts).
 *
 * An instance whose CPU is the limit serves g of offered 3C where g c + (3C - g) r = 1 and C c = 1
 * (c a request's CPU, r a refusal's): g / C = (1 - 3 r/c) / (1 - r/c). 90% of C at 3C needs a
 * refusal under 5% of a request.
 */
import { connect } from 'node:net';
import { processCpuSeconds } from '../cpu-usage.js';
import { AUTHORIZATION, LIST_PATH } from '../fixtures.js';
import { load } from '../load.js';
import { type Deployment, startDeployment } from '../overload-deployments.js';
import type { Progress } from '../progress.js';
import type { ServiceProcess } from '../service-process.js';
import { median } from '../stats.js';

export type RefusalKey = 'request' | 'shed' | 'shed-unlogged' | 'shed-new-connection' | 'accept';

export interface RefusalRow {
  readonly key: RefusalKey;
  readonly what: string;
  readonly answers: number;
  readonly perSecond: number;
  /** Server CPU per answer, µs. */
  readonly cpuMicros: number;
  /** Over a request's. */
  readonly ratio: number;
}

/** How the rows are run: closed-loop connections, seconds per run, rounds interleaved. */
export interface RefusalConfig {
  readonly connections: number;
  readonly seconds: number;
  readonly rounds: number;
  /** Demo pets each instance seeds (a full list page). */
  readonly seedPets: number;
}

export interface RefusalCost {
  readonly instanceCpus: number | undefined;
  readonly rows: RefusalRow[];
}

/** Goodput over capacity at 3x for an instance whose CPU is the limit, a refusal `ratio` of a request. */
export const goodputAtThreeTimes = (ratio: number): number =>
  ratio >= 1 / 3 ? 0 : (1 - 3 * ratio) / (1 - ratio);

/**
 * Every request shed (over a heap limit of 1 byte), the load's address (127.0.0.1) trusted: let in
 * at accept, so the core sheds its requests once node:http has parsed them.
 */
const SHED_AFTER_PARSER = { LOAD_SHEDDING_MAX_HEAP_USED_BYTES: '1', TRUSTED_PROXIES: '127.0.0.1' };

const ROWS: readonly {
  key: RefusalKey;
  what: string;
  env: Record<string, string>;
  headers?: Record<string, string>;
}[] = [
  { key: 'request', what: 'a request (GET /v1/pets?limit=20, 200)', env: {} },
  {
    key: 'shed',
    what: 'a shed refusal (503 after the HTTP parser, logged)',
    env: SHED_AFTER_PARSER,
  },
  {
    key: 'shed-unlogged',
    what: 'a shed refusal, not logged (LOG_LEVEL=error)',
    env: { ...SHED_AFTER_PARSER, LOG_LEVEL: 'error' },
  },
  {
    key: 'shed-new-connection',
    what: 'a shed refusal on a new connection each (what closing idle keep-alive connections while shedding makes every refusal)',
    env: SHED_AFTER_PARSER,
    headers: { connection: 'close' },
  },
  {
    key: 'accept',
    what: 'a refusal at accept while shedding (a new connection, before the parser; what the service does)',
    env: { LOAD_SHEDDING_MAX_HEAP_USED_BYTES: '1' },
  },
];

/** Connections from 127.0.0.1 that each wait for their refusal and go, `connections` at a time. */
async function refusedConnections(
  url: string,
  connections: number,
  seconds: number,
): Promise<number> {
  const { hostname, port } = new URL(url);
  const until = performance.now() + seconds * 1000;
  let refused = 0;
  const one = () =>
    new Promise<void>((resolve) => {
      const socket = connect({ host: hostname, port: Number(port), localAddress: '127.0.0.1' });
      let answered = false;
      // Read, then gone, as a client that got its answer.
      socket.on('data', (chunk: Buffer) => {
        if (chunk.toString('latin1', 0, 12) === 'HTTP/1.1 503') answered = true;
        socket.destroy();
      });
      socket.on('error', () => undefined);
      socket.once('close', () => {
        if (answered) refused++;
        resolve();
      });
      socket.setTimeout(5_000, () => socket.destroy());
    });
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < until) await one();
    }),
  );
  return refused;
}

/** One closed-loop run of a row's answers on its instance: the count, and the seconds it took. */
async function answersOf(
  { key, headers = {} }: (typeof ROWS)[number],
  url: string,
  config: RefusalConfig,
): Promise<{ answers: number; seconds: number }> {
  const started = performance.now();
  if (key === 'accept') {
    const answers = await refusedConnections(url, config.connections, config.seconds);
    return { answers, seconds: (performance.now() - started) / 1000 };
  }
  const result = await load({
    url: `${url}${LIST_PATH}`,
    method: 'GET',
    headers: { authorization: AUTHORIZATION, ...headers },
    connections: config.connections,
    seconds: config.seconds,
  });
  return {
    answers: key === 'request' ? result.requests : result.failures,
    seconds: (performance.now() - started) / 1000,
  };
}

/**
 * Every row on an instance of its own, all started together, runs interleaved in
 * `config.rounds` rounds (the machine's drift falls on every row alike); per row, the
 * median over the rounds of its CPU per answer.
 */
export async function measureRefusalCost(
  config: RefusalConfig,
  progress: Progress,
  instanceCpus: number | undefined,
): Promise<RefusalCost> {
  const started = await Promise.allSettled(
    ROWS.map(({ env }) =>
      startDeployment({ kind: 'alone', instanceCpus, env, seedPets: config.seedPets }),
    ),
  );
  const deployments = started.flatMap((one) => (one.status === 'fulfilled' ? [one.value] : []));
  const failed = started.find((one) => one.status === 'rejected');
  if (failed !== undefined) {
    // Those that did start go, with their quota groups.
    await Promise.all(deployments.map((deployment) => deployment.stop()));
    throw failed.reason;
  }
  try {
    const samples = ROWS.map(() => ({ answers: 0, seconds: 0, cpuMicros: [] as number[] }));
    for (let round = 0; round < config.rounds; round++) {
      for (const [index, row] of ROWS.entries()) {
        const deployment = deployments[index] as Deployment;
        const instance = deployment.instances[0] as ServiceProcess;
        const cpu = () => deployment.cpuSeconds().instances ?? processCpuSeconds(instance.pid);
        const before = cpu();
        const { answers, seconds } = await answersOf(row, deployment.url, config);
        const after = cpu();
        const sample = samples[index] as (typeof samples)[number];
        sample.answers += answers;
        sample.seconds += seconds;
        if (before !== undefined && after !== undefined && answers > 0) {
          sample.cpuMicros.push(((after - before) / answers) * 1e6);
        }
      }
    }
    const rows = ROWS.map(({ key, what }, index) => {
      const sample = samples[index] as (typeof samples)[number];
      const cpuMicros = median(sample.cpuMicros);
      progress.log(`refusal cost: ${what}: ${cpuMicros.toFixed(1)} µs of server CPU each`);
      return {
        key,
        what,
        answers: sample.answers,
        perSecond: sample.answers / sample.seconds,
        cpuMicros,
      };
    });
    const request = rows.find((row) => row.key === 'request')?.cpuMicros ?? Number.NaN;
    return { instanceCpus, rows: rows.map((row) => ({ ...row, ratio: row.cpuMicros / request })) };
  } finally {
    await Promise.all(deployments.map((deployment) => deployment.stop()));
  }
}
