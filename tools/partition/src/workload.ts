import { randomUUID } from 'node:crypto';
import { createPetStoreClient, type PetStoreClient, PetStoreError } from '@petstore/client';
import type { CreateOp, HistoryOp, Outcome, PageOp } from './history.js';

// What the clients do while the nemesis works, every operation recorded in the history:
// keyed creates and walks over every page of the list through the balancer, with
// @petstore/client's default settings (only observers added), and probes straight to each
// instance: a create without retries (is it serving?) and its /readyz (how fast, what status).

/** A /readyz answer (or none) from one instance. */
export interface ReadyProbe {
  readonly instance: number;
  readonly at: number;
  /** Seconds until the answer; the timeout when none came. */
  readonly seconds: number;
  /** 0 when no answer came in time. */
  readonly status: number;
}

/** A create straight to one instance, no retries: whether it serves. */
export interface ServeProbe {
  readonly instance: number;
  readonly start: number;
  readonly end: number;
  readonly ok: boolean;
}

export interface Recording {
  readonly ops: HistoryOp[];
  readonly serve: ServeProbe[];
  readonly ready: ReadyProbe[];
  /** Seconds (since the start) of each retry the clients made. */
  readonly retries: number[];
  /** Answers that were not JSON: `status content-type`. */
  readonly nonJson: string[];
  /** `outcome_unknown` errors whose idempotencyKey was not the one sent. */
  readonly wrongKeys: string[];
  now(): number;
}

export function newRecording(): Recording {
  const started = performance.now();
  return {
    ops: [],
    serve: [],
    ready: [],
    retries: [],
    nonJson: [],
    wrongKeys: [],
    now: () => (performance.now() - started) / 1000,
  };
}

const isJson = (res: Response): boolean =>
  res.status === 204 ||
  res.status === 304 ||
  /^application\/(problem\+)?json\b/i.test(res.headers.get('content-type') ?? '');

/** A client with the default settings, observed: retries counted, answers that are not JSON noted. */
function observedClient(baseUrl: string, apiKey: string, recording: Recording): PetStoreClient {
  return createPetStoreClient({
    baseUrl,
    apiKey,
    fetch: async (input, init) => {
      const res = await fetch(input, init);
      if (!isJson(res))
        recording.nonJson.push(`${res.status} ${res.headers.get('content-type') ?? '(none)'}`);
      return res;
    },
    onRetry: () => recording.retries.push(recording.now()),
  });
}

/** How an error thrown by the client ends an operation. */
function outcomeOf(error: unknown): { outcome: Outcome; answer: string } {
  if (error instanceof PetStoreError) {
    const answer = `${error.code} ${error.status}`;
    // Only `outcome_unknown` leaves a create's fate open; any other error the client throws is
    // final and stored nothing (a refusal, or a request never sent).
    return { outcome: error.code === 'outcome_unknown' ? 'unknown' : 'failed', answer };
  }
  // Not the client's own error: nothing is known.
  return { outcome: 'unknown', answer: error instanceof Error ? error.message : String(error) };
}

/** One keyed create, recorded as invoked, then as it ended. */
async function recordedCreate(
  client: PetStoreClient,
  recording: Recording,
  process: string,
  name: string,
): Promise<boolean> {
  const op: CreateOp = {
    kind: 'create',
    process,
    name,
    key: randomUUID(),
    invokedAt: recording.now(),
  };
  recording.ops.push(op);
  try {
    const pet = await client.createPet({ name, categoryId: 1 }, { idempotencyKey: op.key });
    op.id = pet.id;
    op.outcome = 'ok';
    return true;
  } catch (error) {
    Object.assign(op, outcomeOf(error));
    if (
      error instanceof PetStoreError &&
      error.code === 'outcome_unknown' &&
      error.idempotencyKey !== op.key
    ) {
      recording.wrongKeys.push(`${name}: ${error.idempotencyKey}`);
    }
    return false;
  } finally {
    op.completedAt = recording.now();
  }
}

export interface LoadOptions {
  /** The balancer's API URL (`http://.../v1`). */
  readonly url: string;
  /** Each instance's API URL, for the probes. */
  readonly instanceUrls: readonly string[];
  readonly apiKey: string;
  readonly creators: number;
  readonly walkers: number;
  /** Page size of the walks. */
  readonly pageSize: number;
  readonly running: () => boolean;
  readonly recording: Recording;
  /** Unique per run: the names of its pets. */
  readonly prefix: string;
}

/** `creators` loops of keyed creates, until `running()` is false. */
async function creators(options: LoadOptions): Promise<void> {
  const client = observedClient(options.url, options.apiKey, options.recording);
  const loop = async (w: number) => {
    for (let n = 0; options.running(); n++) {
      await recordedCreate(
        client,
        options.recording,
        `create-${w}`,
        `${options.prefix}-c${w}-${n}`,
      );
    }
  };
  await Promise.all(Array.from({ length: options.creators }, (_, w) => loop(w)));
}

/** `walkers` loops, each walking every page of the list from the start, again and again. */
async function walkers(options: LoadOptions): Promise<void> {
  const { recording } = options;
  const client = observedClient(options.url, options.apiKey, recording);
  let walks = 0;
  const loop = async (w: number) => {
    while (options.running()) {
      const walk = walks++;
      let cursor: string | undefined;
      let afterId = 0;
      for (let index = 0; options.running(); index++) {
        const op: PageOp = {
          kind: 'page',
          process: `walk-${w}`,
          walk,
          index,
          afterId,
          invokedAt: recording.now(),
        };
        recording.ops.push(op);
        try {
          const page = await client.listPets({
            limit: options.pageSize,
            ...(cursor === undefined ? {} : { cursor }),
          });
          op.ids = page.items.map((pet) => pet.id);
          op.last = page.nextCursor === undefined;
          op.outcome = 'ok';
          op.completedAt = recording.now();
          if (page.nextCursor === undefined) break;
          cursor = page.nextCursor;
          afterId = op.ids.at(-1) ?? afterId;
        } catch (error) {
          // A read that failed changed nothing: the walk ends there.
          op.outcome = 'failed';
          op.answer = outcomeOf(error).answer;
          op.completedAt = recording.now();
          break;
        }
      }
    }
  };
  await Promise.all(Array.from({ length: options.walkers }, (_, w) => loop(w)));
}

/**
 * Every `everyMs`, on each instance straight: a create with no retries (recorded in the
 * history too: it is a create like any other) and a `/readyz` with a 3 s timeout.
 */
async function probes(options: LoadOptions, everyMs = 250): Promise<void> {
  const { recording } = options;
  const serveLoop = async (instance: number, url: string) => {
    const client = createPetStoreClient({
      baseUrl: url,
      apiKey: options.apiKey,
      retryBudgetMs: 0,
      timeoutMs: 2000,
    });
    for (let n = 0; options.running(); n++) {
      const start = recording.now();
      const ok = await recordedCreate(
        client,
        recording,
        `probe-${instance + 1}`,
        `${options.prefix}-p${instance + 1}-${n}`,
      );
      recording.serve.push({ instance, start, end: recording.now(), ok });
      await pause(everyMs - (recording.now() - start) * 1000);
    }
  };
  const readyLoop = async (instance: number, url: string) => {
    const readyz = new URL('/readyz', url).href;
    while (options.running()) {
      const at = recording.now();
      const status = await fetch(readyz, { signal: AbortSignal.timeout(3000) }).then(
        async (res) => {
          await res.arrayBuffer();
          return res.status;
        },
        () => 0,
      );
      recording.ready.push({ instance, at, seconds: recording.now() - at, status });
      await pause(everyMs * 2 - (recording.now() - at) * 1000);
    }
  };
  await Promise.all(
    options.instanceUrls.flatMap((url, n) => [serveLoop(n, url), readyLoop(n, url)]),
  );
}

const pause = (ms: number) =>
  ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();

/** The whole load: resolves once every loop has ended its last operation. */
export async function runLoad(options: LoadOptions): Promise<void> {
  await Promise.all([creators(options), walkers(options), probes(options)]);
}
