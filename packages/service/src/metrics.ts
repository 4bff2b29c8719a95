import type { DeprecatedCallEvent, PetStoreHooks, ResponseEvent } from '@petstore/core';
import type { PoolCounts } from '@petstore/storage-postgres';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { ReplicaReads } from './replica-reads.js';

export interface MetricsOptions {
  /** The PostgreSQL pool's counts, when there is one: they become gauges. */
  readonly poolCounts?: (() => PoolCounts) | undefined;
  /** Where reads went, with a read replica: a counter by target and outcome. */
  readonly replicaReads?: ReplicaReads | undefined;
}

/** Prometheus metrics of one app: fed by the core's hooks, read by `GET /metrics`. */
export interface Metrics {
  /** For `createPetStore({ hooks })`, next to the logging hooks (see `withMetrics`). */
  readonly hooks: {
    onResponse(event: ResponseEvent): void;
    onDeprecatedCall(event: DeprecatedCallEvent): void;
  };
  /** The text exposition format, and its content type. */
  scrape(): Promise<{ readonly contentType: string; readonly body: string }>;
  /**
   * Counts a connection refused at accept (`petstore_connections_refused_total`): its client held
   * its share, or the instance was shedding load.
   */
  connectionRefused(): void;
  /** Reports `petstore_storage_up` (1 or 0) from `isUp`, asked at each scrape. */
  watchStorage(isUp: () => Promise<boolean>): void;
}

/** `operation` label of requests no operation answered (unknown paths, refused keys). */
const NO_OPERATION = 'none';

/** How the core's `ShedCause`s begin (`shed_event_loop_delay`, `shed_heap_used`, `shed_in_flight`). */
const SHED = 'shed_';

/**
 * A registry of its own (not prom-client's global one), so two apps or tests in one process
 * never share counts. Labels come from the core's events (the operationId), never from paths,
 * so a scan of random URLs cannot blow up the number of series.
 */
export function createMetrics({ poolCounts, replicaReads }: MetricsOptions = {}): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

  const requests = new Counter({
    name: 'petstore_http_requests_total',
    help: 'API requests answered, by operationId (none when no operation matched) and status.',
    labelNames: ['operation', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'petstore_http_request_duration_seconds',
    help: 'Time from receiving an API request to its answer, by operationId.',
    labelNames: ['operation'] as const,
    registers: [registry],
  });
  const deprecated = new Counter({
    name: 'petstore_deprecated_calls_total',
    help: 'Calls of deprecated operations, by operationId.',
    labelNames: ['operation'] as const,
    registers: [registry],
  });
  // No label: the refused client's address would make a series per attacker.
  const refused = new Counter({
    name: 'petstore_connections_refused_total',
    help: 'Connections answered 503 at accept: their client held its share of connections, or the instance was shedding load.',
    registers: [registry],
  });
  const unavailable = new Counter({
    name: 'petstore_storage_unavailable_total',
    help: 'API requests answered 503 because the storage was unreachable or too slow, by reason (a SQLSTATE, an errno, timeout, verify).',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  const shed = new Counter({
    name: 'petstore_requests_shed_total',
    help: 'API requests answered 503 at once by load shedding, before auth, body or storage, by reason (event_loop_delay, heap_used, in_flight).',
    labelNames: ['reason'] as const,
    registers: [registry],
  });

  if (replicaReads !== undefined) {
    new Counter({
      name: 'petstore_db_reads_total',
      help: 'Reads with a read replica (DATABASE_READ_URL), by where they went (replica, primary_after_wait, primary_at_once) and why (replica, behind, failed, resting).',
      labelNames: ['target', 'outcome'] as const,
      registers: [registry],
      collect() {
        // The storage keeps the counts: copied at each scrape.
        this.reset();
        for (const { target, outcome, count } of replicaReads.counts()) {
          this.inc({ target, outcome }, count);
        }
      },
    });
  }

  if (poolCounts !== undefined) {
    const gauge = (name: string, help: string, read: (counts: PoolCounts) => number): void => {
      new Gauge({
        name,
        help,
        registers: [registry],
        collect() {
          this.set(read(poolCounts()));
        },
      });
    };
    gauge(
      'petstore_db_pool_connections',
      'PostgreSQL connections open in the pool.',
      (p) => p.totalCount,
    );
    gauge(
      'petstore_db_pool_idle_connections',
      'Open PostgreSQL connections not in use.',
      (p) => p.idleCount,
    );
    gauge(
      'petstore_db_pool_waiting_clients',
      'Queries waiting for a PostgreSQL connection from the pool.',
      (p) => p.waitingCount,
    );
  }

  return {
    hooks: {
      onResponse(event: ResponseEvent) {
        const operation = event.operationId ?? NO_OPERATION;
        requests.inc({ operation, status: String(event.status) });
        duration.observe({ operation }, event.durationMs / 1000);
        if (event.status !== 503) return;
        // Load shedding's causes start with `shed_`; every other 503 is the storage (or
        // `verify`) unavailable, its reasons from a small fixed set (the storages' outage codes),
        // anything else `other`.
        const cause = event.cause ?? '';
        if (cause.startsWith(SHED)) shed.inc({ reason: reasonLabel(cause.slice(SHED.length)) });
        else unavailable.inc({ reason: reasonLabel(event.cause) });
      },
      onDeprecatedCall(event: DeprecatedCallEvent) {
        deprecated.inc({ operation: event.operationId });
      },
    },
    connectionRefused() {
      refused.inc();
    },
    async scrape() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
    watchStorage(isUp) {
      new Gauge({
        name: 'petstore_storage_up',
        help: 'Whether the storage answered the last readiness probe in time (1) or not (0).',
        registers: [registry],
        async collect() {
          this.set((await isUp()) ? 1 : 0);
        },
      });
    },
  };
}

const reasonLabel = (cause: string | undefined): string =>
  cause !== undefined && /^[A-Za-z0-9_]{1,32}$/.test(cause) ? cause : 'other';

/** `hooks` with the metrics' hooks called after them (each hook is guarded by the core). */
export function withMetrics<H extends PetStoreHooks>(
  hooks: H,
  metrics: Metrics | undefined,
): PetStoreHooks {
  if (metrics === undefined) return hooks;
  return {
    ...hooks,
    onResponse(event) {
      hooks.onResponse?.(event);
      metrics.hooks.onResponse(event);
    },
    onDeprecatedCall(event) {
      hooks.onDeprecatedCall?.(event);
      metrics.hooks.onDeprecatedCall(event);
    },
  };
}
