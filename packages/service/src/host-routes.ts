import type { ServerResponse } from 'node:http';
import type { ApiReference } from '@petstore/api-reference';
import {
  isStorageUnavailable,
  type PetStorage,
  requestIdOf as requestIdFromHeaders,
} from '@petstore/core';
import { type Logger, logRequest } from './logging.js';
import type { Metrics } from './metrics.js';

/** A host-route answer, for the app to write with its framework. */
export interface HostAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** What a host route may answer: a `HostAnswer`, or bytes (the API reference's scripts). */
export interface HostRouteAnswer extends Omit<HostAnswer, 'body'> {
  readonly body: string | Uint8Array;
}

/**
 * The answer as given, with its length unless it says one (a HEAD says the length a GET would
 * send): no chunked framing for a body already in memory.
 */
export function writeHostAnswer(
  res: ServerResponse,
  { status, headers, body }: HostRouteAnswer,
): void {
  const length = headers['content-length'] ?? String(Buffer.byteLength(body));
  res.writeHead(status, { ...headers, 'content-length': length });
  res.end(body);
}

type RequestIdHeader = string | readonly string[] | undefined;

/** What the apps serve outside the API's mount path, without auth and without the core. */
export interface HostRoutes {
  /** `GET /healthz`: the process is alive and serving. */
  live(requestIdHeader: RequestIdHeader): HostAnswer;
  /**
   * `GET /readyz`: whether this instance should get traffic. 503 once shutdown began; else 200,
   * with the storage's state in the body (`storage: ok | unavailable`): a shared database down
   * is answered by the API itself (JSON 503, `Retry-After`), not by taking every instance out of
   * the balancer. With `readyRequiresStorage`, a storage that cannot answer is a 503 too. The
   * storage state comes from a probe at most `readyCacheMs` old; concurrent probes share one.
   */
  ready(requestIdHeader: RequestIdHeader): Promise<HostAnswer>;
  /** `GET /metrics`: the Prometheus text format, or the 404 when metrics are off. */
  metrics(requestIdHeader: RequestIdHeader): Promise<HostAnswer>;
  /** Any other path outside the API: the core's 404 body, so every answer looks alike. */
  notFound(method: string, path: string, requestIdHeader: RequestIdHeader): HostAnswer;
}

export interface HostRoutesOptions {
  readonly storage: PetStorage;
  readonly logger: Logger;
  /** True once shutdown began: not ready for new work any more. */
  readonly stopping: () => boolean;
  /** Longest wait for the storage's answer to a probe (its result is kept). Default 2000. */
  readonly timeoutMs?: number;
  /**
   * Longest `/readyz` waits for that answer before it answers itself, the storage then counted
   * as not answering: under a balancer's check timeout (HAProxy's is its 1 s interval), whatever
   * the storage does, dropped packets included. Default 500.
   */
  readonly answerWithinMs?: number;
  /** How old a readiness result may be when answered again. Default 1000. */
  readonly readyCacheMs?: number;
  /** Served at `GET /metrics`; absent (METRICS=off): that path is a 404 like any other. */
  readonly metrics?: Metrics | undefined;
  /** /readyz answers 503 while the storage cannot answer (READY_REQUIRES_STORAGE=on). */
  readonly readyRequiresStorage?: boolean;
}

export const DEFAULT_READY_TIMEOUT_MS = 2000;
export const DEFAULT_READY_ANSWER_MS = 500;
const DEFAULT_READY_CACHE_MS = 1000;

const TIMED_OUT = Symbol('timed out');

/** A JSON answer of the apps' own, never cached, with its request id (and any `extra` headers). */
export function jsonAnswer(
  status: number,
  requestId: string,
  body: object,
  extra: Readonly<Record<string, string>> = {},
): HostAnswer {
  return {
    status,
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      'x-request-id': requestId,
      ...extra,
    },
    body: JSON.stringify(body),
  };
}

/**
 * Health checks and the 404 outside the API. Probes come every few seconds, so a passing one
 * is logged at debug; a failing readiness check at warn, with the reason.
 */
export function createHostRoutes({
  storage,
  logger,
  stopping,
  timeoutMs = DEFAULT_READY_TIMEOUT_MS,
  answerWithinMs = DEFAULT_READY_ANSWER_MS,
  readyCacheMs = DEFAULT_READY_CACHE_MS,
  metrics,
  readyRequiresStorage = false,
}: HostRoutesOptions): HostRoutes {
  const log = (
    method: string,
    route: string | undefined,
    started: number,
    result: HostAnswer,
    requestId: string,
    reason?: string,
  ): HostAnswer => {
    const durationMs = Math.round((performance.now() - started) * 10) / 10;
    const line = { method, route, status: result.status, durationMs, requestId };
    if (result.status === 200 && reason === undefined) logger.debug(line, 'request');
    else logRequest(logger, { ...line, reason });
    return result;
  };

  /** Why the storage is not ready, or undefined when it answered in time. */
  const probe = async (): Promise<string | undefined> => {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<typeof TIMED_OUT>((resolve) => {
      timer = setTimeout(() => resolve(TIMED_OUT), timeoutMs);
    });
    try {
      const result = await Promise.race([storage.listPets({ limit: 1 }), deadline]);
      return result === TIMED_OUT ? `no answer within ${timeoutMs} ms` : undefined;
    } catch (error) {
      // An outage is expected here; anything else is a bug worth its stack.
      if (!isStorageUnavailable(error)) logger.error({ err: error }, 'readiness probe failed');
      return error instanceof Error ? error.message : String(error);
    } finally {
      clearTimeout(timer);
    }
  };

  // Probes arrive from every load balancer and orchestrator, as often as they like: each result
  // is reused for readyCacheMs (counted from when its query started), and probes arriving
  // while a query runs wait for that one, so the storage sees at most about one query a second.
  let latest: { readonly startedAt: number; readonly problem: string | undefined } | undefined;
  let running: Promise<string | undefined> | undefined;
  const recentProbe = (): Promise<string | undefined> => {
    if (latest !== undefined && performance.now() - latest.startedAt < readyCacheMs) {
      return Promise.resolve(latest.problem);
    }
    if (running === undefined) {
      const startedAt = performance.now();
      running = probe().then((problem) => {
        latest = { startedAt, problem };
        running = undefined;
        return problem;
      });
    }
    return running;
  };

  metrics?.watchStorage(async () => (await recentProbe()) === undefined);

  /** The probe's verdict, or "no answer" once `answerWithinMs` passed (the probe goes on). */
  const boundedProbe = async (): Promise<string | undefined> => {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<string>((resolve) => {
      timer = setTimeout(() => resolve(`no answer within ${answerWithinMs} ms`), answerWithinMs);
    });
    try {
      return await Promise.race([recentProbe(), late]);
    } finally {
      clearTimeout(timer);
    }
  };

  // The core's rule, so host routes and API answers agree on which ids are kept.
  const requestIdOf = (header: string | readonly string[] | undefined) =>
    requestIdFromHeaders({ 'x-request-id': header });

  const notFound: HostRoutes['notFound'] = (method, path, header) => {
    const started = performance.now();
    const requestId = requestIdOf(header);
    // JSON.stringify escapes whatever the path holds; the log gets no path at all, like the core's.
    const body = { code: 'not_found', message: `No route for ${path}.`, status: 404 };
    return log(method, undefined, started, jsonAnswer(404, requestId, body), requestId);
  };

  return {
    live(header) {
      const started = performance.now();
      const requestId = requestIdOf(header);
      return log(
        'GET',
        '/healthz',
        started,
        jsonAnswer(200, requestId, { status: 'ok' }),
        requestId,
      );
    },
    async ready(header) {
      const started = performance.now();
      const requestId = requestIdOf(header);
      if (stopping()) {
        const result = jsonAnswer(503, requestId, { status: 'stopping' });
        return log('GET', '/readyz', started, result, requestId);
      }
      const problem = await boundedProbe();
      const storage = problem === undefined ? 'ok' : 'unavailable';
      const result =
        problem !== undefined && readyRequiresStorage
          ? jsonAnswer(503, requestId, { status: 'unavailable', storage })
          : jsonAnswer(200, requestId, { status: 'ready', storage });
      return log('GET', '/readyz', started, result, requestId, problem);
    },
    async metrics(header) {
      if (metrics === undefined) return notFound('GET', '/metrics', header);
      const started = performance.now();
      const requestId = requestIdOf(header);
      const { contentType, body } = await metrics.scrape();
      const result: HostAnswer = {
        status: 200,
        headers: {
          'content-type': contentType,
          'cache-control': 'no-store',
          'x-request-id': requestId,
        },
        body,
      };
      return log('GET', '/metrics', started, result, requestId);
    },
    notFound,
  };
}

/** What a host route is given: the request line and headers, never a body. */
export interface HostRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>;
}

/**
 * One route the apps answer outside the API, for `GET` (and `HEAD`). Every host route answers
 * from the request line and headers alone: a body sent to one is never read (the connection is
 * closed after the answer instead), so no client can make the apps buffer or parse anything.
 */
export interface HostRoute {
  readonly path: string;
  readonly readsBody: false;
  answer(request: HostRequest): HostRouteAnswer | Promise<HostRouteAnswer>;
}

/**
 * `/docs` and its scripts (`@petstore/api-reference`, mounted at its `path`), each answer with its
 * request id and one log line, like every other host route.
 */
function docsRoutes(docs: ApiReference, logger: Logger): HostRoute[] {
  return docs.paths.map((below) => {
    const path = below === '/' ? docs.path : `${docs.path}${below}`;
    return {
      path,
      readsBody: false,
      answer: async ({ method, headers }) => {
        const started = performance.now();
        const answer = await docs.handle({ method, path: below, headers, publicPath: docs.path });
        const requestId = requestIdFromHeaders({ 'x-request-id': headers['x-request-id'] });
        const durationMs = performance.now() - started;
        logRequest(logger, { method, route: path, status: answer.status, durationMs, requestId });
        return {
          status: answer.status,
          headers: { ...answer.headers, 'x-request-id': requestId },
          body: answer.body ?? '',
        };
      },
    };
  });
}

/** What probes and scrapes ask for: `/healthz`, `/readyz` and `/metrics`. */
export function managementRoutes(host: HostRoutes): readonly HostRoute[] {
  return [
    {
      path: '/healthz',
      readsBody: false,
      answer: ({ headers }) => host.live(headers['x-request-id']),
    },
    {
      path: '/readyz',
      readsBody: false,
      answer: ({ headers }) => host.ready(headers['x-request-id']),
    },
    {
      path: '/metrics',
      readsBody: false,
      answer: ({ headers }) => host.metrics(headers['x-request-id']),
    },
  ];
}

/**
 * The one list of host routes both apps serve on the API port: add a route here and both have
 * it. The health checks stay there (a balancer checks the port it sends to); `/metrics` only
 * when the operator asks (METRICS_ON_API_PORT=on): it belongs on the management port.
 */
export function hostRouteTable(
  host: HostRoutes,
  docs: ApiReference | undefined,
  logger: Logger,
  metricsOnApiPort: boolean,
): readonly HostRoute[] {
  return [
    ...managementRoutes(host).filter((route) => metricsOnApiPort || route.path !== '/metrics'),
    ...(docs === undefined ? [] : docsRoutes(docs, logger)),
  ];
}
