import { createPetStoreClient, PetStoreError } from '@petstore/client';
import pg from 'pg';

// Keyed creates through the balancer from clients with @petstore/client's default settings (only
// observers added: an onRetry counter and a fetch that notes answers that are not JSON), probes
// of each instance straight (no retries, so they show when an instance serves creates again),
// and the figures: per fault, calls, lost, duplicated, failed, seconds back to serving.

export interface Call {
  readonly name: string;
  /** Seconds since the run's start. */
  readonly start: number;
  readonly end: number;
  readonly ok: boolean;
  readonly id?: number;
  readonly code?: string;
}

export interface Probe {
  readonly instance: number;
  readonly start: number;
  readonly end: number;
  readonly ok: boolean;
}

export interface Fault {
  /** Seconds since the run's start. */
  readonly at: number;
  readonly what: string;
}

export interface Recording {
  readonly calls: Call[];
  readonly probes: Probe[];
  /** Seconds (since the start) of each retry the clients made. */
  readonly retries: number[];
  /** Answers that were not JSON, as `status content-type`. */
  readonly nonJson: string[];
  readonly faults: Fault[];
  /** Seconds since the start. */
  now(): number;
  note(what: string): void;
}

export function newRecording(): Recording {
  const started = performance.now();
  const now = () => (performance.now() - started) / 1000;
  const faults: Fault[] = [];
  return {
    calls: [],
    probes: [],
    retries: [],
    nonJson: [],
    faults,
    now,
    note: (what) => faults.push({ at: now(), what }),
  };
}

/** Whether a response is the API's JSON (or an empty 204 / 304). */
function isJson(res: Response): boolean {
  if (res.status === 204 || res.status === 304) return true;
  return /^application\/(problem\+)?json\b/i.test(res.headers.get('content-type') ?? '');
}

export interface LoadOptions {
  readonly url: string;
  readonly apiKey: string;
  readonly clients: number;
  /** Calls start while this is true. */
  readonly running: () => boolean;
  readonly recording: Recording;
  /** Name prefix, unique per run. */
  readonly prefix: string;
}

/** `clients` loops of keyed creates; resolves when every loop has finished its last call. */
export async function createLoad(options: LoadOptions): Promise<void> {
  const { recording } = options;
  const observe: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    if (!isJson(res)) {
      recording.nonJson.push(`${res.status} ${res.headers.get('content-type') ?? '(none)'}`);
    }
    return res;
  };
  // Default settings: retry budget, retries, timeouts are the client's own.
  const client = createPetStoreClient({
    baseUrl: options.url,
    apiKey: options.apiKey,
    fetch: observe,
    onRetry: () => recording.retries.push(recording.now()),
  });
  const loop = async (w: number) => {
    for (let n = 0; options.running(); n++) {
      const name = `${options.prefix}-${w}-${n}`;
      const start = recording.now();
      try {
        const pet = await client.createPet({ name, categoryId: 1 });
        recording.calls.push({ name, start, end: recording.now(), ok: true, id: pet.id });
      } catch (error) {
        const code = error instanceof PetStoreError ? error.code : String(error);
        recording.calls.push({ name, start, end: recording.now(), ok: false, code });
      }
    }
  };
  await Promise.all(Array.from({ length: options.clients }, (_, w) => loop(w)));
}

/** One create every `everyMs` on each instance straight, with no retry: when it serves again. */
export async function probeInstances(
  urls: readonly string[],
  apiKey: string,
  running: () => boolean,
  recording: Recording,
  prefix: string,
  everyMs = 250,
): Promise<void> {
  const loop = async (instance: number, url: string) => {
    const client = createPetStoreClient({
      baseUrl: url,
      apiKey,
      retryBudgetMs: 0,
      timeoutMs: 2000,
    });
    for (let n = 0; running(); n++) {
      const start = recording.now();
      const ok = await client
        .createPet({ name: `${prefix}-p${instance}-${n}`, categoryId: 1 })
        .then(
          () => true,
          () => false,
        );
      recording.probes.push({ instance, start, end: recording.now(), ok });
      const wait = everyMs - (recording.now() - start) * 1000;
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    }
  };
  await Promise.all(urls.map((url, n) => loop(n, url)));
}

export interface Stored {
  /** name → ids stored under it. */
  readonly byName: Map<string, number[]>;
}

/** Every pet whose name starts with `prefix`, straight from the leader. */
export async function storedPets(databaseUrl: string, prefix: string): Promise<Stored> {
  const client = new pg.Client({ connectionString: databaseUrl });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string; ids: string[] }>(
      `SELECT name, array_agg(id::text) AS ids FROM petstore.pets WHERE starts_with(name, $1) GROUP BY name`,
      [prefix],
    );
    return { byName: new Map(rows.map((row) => [row.name, row.ids.map(Number)])) };
  } finally {
    await client.end();
  }
}

export interface FaultFigures {
  readonly fault: string;
  readonly at: number;
  readonly calls: number;
  readonly lost: number;
  readonly duplicated: number;
  readonly failed: number;
  /** Probes (creates straight to an instance, no retries) that failed in the window. */
  readonly failedProbes: number;
  /** The slowest instance's seconds from the fault to serving creates for good; 0 if it never stopped. */
  readonly backSeconds: number;
  readonly backSecondsPerInstance: readonly number[];
}

export interface Figures {
  readonly calls: number;
  readonly acknowledged: number;
  readonly lost: readonly string[];
  readonly duplicated: readonly string[];
  readonly failed: readonly Call[];
  readonly failedByCode: Record<string, number>;
  readonly nonJson: readonly string[];
  readonly retries: number;
  readonly perFault: readonly FaultFigures[];
}

/** How long an instance must answer every probe to count as serving again. */
const STEADY_S = 2;

/**
 * Seconds from `at` until `instance` serves creates again (within [at, until)): from the fault
 * to the end of the first successful probe after its first failure that is followed by STEADY_S
 * of successful probes (a flapping instance is not back). 0 when no probe failed.
 */
function backAfter(probes: readonly Probe[], instance: number, at: number, until: number): number {
  const window = probes.filter((p) => p.instance === instance && p.start >= at && p.start < until);
  const first = window.findIndex((p) => !p.ok);
  if (first < 0) return 0;
  for (let n = first + 1; n < window.length; n++) {
    const probe = window[n] as Probe;
    if (!probe.ok) continue;
    const steady = window.filter((p) => p.start > probe.start && p.start <= probe.start + STEADY_S);
    if (steady.every((p) => p.ok)) return probe.end - at;
  }
  return Number.POSITIVE_INFINITY;
}

export function figures(
  recording: Recording,
  stored: Stored,
  instances: number,
  end: number,
): Figures {
  const { calls, faults } = recording;
  const acked = calls.filter((c) => c.ok);
  const lostNames = new Set(
    acked.filter((c) => !stored.byName.get(c.name)?.includes(c.id ?? -1)).map((c) => c.name),
  );
  const dupNames = new Set(
    calls.filter((c) => (stored.byName.get(c.name)?.length ?? 0) > 1).map((c) => c.name),
  );
  const failed = calls.filter((c) => !c.ok);
  const failedByCode: Record<string, number> = {};
  for (const c of failed) failedByCode[c.code ?? '?'] = (failedByCode[c.code ?? '?'] ?? 0) + 1;
  const perFault = faults.map((fault, n) => {
    const until = faults[n + 1]?.at ?? end;
    const inWindow = calls.filter((c) => c.start >= fault.at && c.start < until);
    const back = Array.from({ length: instances }, (_, i) =>
      backAfter(recording.probes, i, fault.at, until),
    );
    return {
      fault: fault.what,
      at: fault.at,
      calls: inWindow.length,
      lost: inWindow.filter((c) => lostNames.has(c.name)).length,
      duplicated: inWindow.filter((c) => dupNames.has(c.name)).length,
      failed: inWindow.filter((c) => !c.ok).length,
      failedProbes: recording.probes.filter((p) => !p.ok && p.start >= fault.at && p.start < until)
        .length,
      backSeconds: Math.max(0, ...back),
      backSecondsPerInstance: back,
    };
  });
  return {
    calls: calls.length,
    acknowledged: acked.length,
    lost: [...lostNames],
    duplicated: [...dupNames],
    failed,
    failedByCode,
    nonJson: recording.nonJson,
    retries: recording.retries.length,
    perFault,
  };
}

/** Figures as lines for a log or a report. */
export function describe(f: Figures): string {
  const lines = [
    `${f.calls} calls, ${f.acknowledged} acknowledged, ${f.lost.length} lost, ${f.duplicated.length} duplicated, ` +
      `${f.failed.length} failed ${JSON.stringify(f.failedByCode)}, ${f.nonJson.length} non-JSON answers, ${f.retries} retries`,
    'fault                                  at(s)   calls  lost  dup  failed  back(s) (per instance; failed probes)',
  ];
  for (const p of f.perFault) {
    lines.push(
      `${p.fault.padEnd(38)} ${p.at.toFixed(1).padStart(5)} ${String(p.calls).padStart(7)} ${String(p.lost).padStart(5)} ${String(p.duplicated).padStart(4)} ${String(p.failed).padStart(7)}  ${p.backSeconds.toFixed(1).padStart(6)} (${p.backSecondsPerInstance.map((s) => s.toFixed(1)).join(', ')}; ${p.failedProbes})`,
    );
  }
  return lines.join('\n');
}

/** Per-second counts for the timeline: creates done, retries, failed calls, failed probes. */
export function timeline(
  recording: Recording,
  end: number,
): { t: number; metric: string; value: number }[] {
  const seconds = Math.ceil(end);
  const series: { t: number; metric: string; value: number }[] = [];
  const count = (times: readonly number[], metric: string) => {
    const buckets = new Array<number>(seconds + 1).fill(0);
    for (const t of times) {
      const bucket = Math.min(seconds, Math.floor(t));
      buckets[bucket] = (buckets[bucket] ?? 0) + 1;
    }
    for (const [t, value] of buckets.entries()) series.push({ t, metric, value });
  };
  count(
    recording.calls.filter((c) => c.ok).map((c) => c.end),
    'creates acknowledged/s',
  );
  count(recording.retries, 'client retries/s');
  count(
    recording.calls.filter((c) => !c.ok).map((c) => c.end),
    'failed calls/s',
  );
  count(
    recording.probes.filter((p) => !p.ok).map((p) => p.end),
    'failed probes/s',
  );
  return series;
}
