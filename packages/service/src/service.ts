import type { AddressInfo } from 'node:net';
import { type ApiReference, createApiReference } from '@petstore/api-reference';
import { createPetStore, DEFAULT_API_PATH, type PetStore } from '@petstore/core';
import { bannerLines } from './banner.js';
import { type AppConfig, type Env, loadConfig } from './config.js';
import { createHostRoutes, type HostRoutes, managementRoutes } from './host-routes.js';
import { withKeptKey } from './kept-key.js';
import { createLogger, type Logger, loggingHooks } from './logging.js';
import { startManagementListener } from './management.js';
import { createMetrics, type Metrics, withMetrics } from './metrics.js';
import { type PreemptedRequests, preemptedRequests } from './preempted.js';
import { type Drain, handleShutdownSignals } from './shutdown.js';
import { openStorage, seedPets } from './storage.js';
import { startTracing, type Tracing } from './tracing.js';

/** What an app's framework code is given to build its server from. */
export interface ServiceParts {
  readonly config: AppConfig;
  readonly store: PetStore;
  /**
   * Where the service mounts the API (`/v1`): the framework mounts `store` here, the front door
   * hands it everything below, and links, the document and the banner show it.
   */
  readonly mountPath: string;
  /** /healthz, /readyz and the 404 outside the mount path. */
  readonly host: HostRoutes;
  /** GET /docs and its scripts (`@petstore/api-reference`); undefined when DOCS=off. */
  readonly docs: ApiReference | undefined;
  readonly logger: Logger;
  /** True once shutdown began (answers may then close their connection). */
  readonly stopping: () => boolean;
  /** API requests the HTTP layer ended first: the core's reports on them are dropped. */
  readonly preempted: PreemptedRequests;
  /** OpenTelemetry, when the OTEL_* variables ask for it. */
  readonly tracing: Tracing | undefined;
  /** Prometheus metrics; undefined when METRICS=off. */
  readonly metrics: Metrics | undefined;
}

/** What it hands back once listening. */
export interface Serving {
  readonly address: AddressInfo;
  readonly drain: Drain;
}

/**
 * Everything an example app does apart from its framework: config, logger, storage, the core
 * with logging hooks, the banner, and graceful shutdown. `serve` builds and starts the server.
 * Bad configuration or a failed start prints a line on stderr and exits 1.
 */
export async function runService(
  serve: (parts: ServiceParts) => Promise<Serving>,
  env: Env = process.env,
): Promise<void> {
  const loaded = loadConfig(env);
  if (!loaded.ok) {
    for (const error of loaded.errors) console.error(`config: ${error}`);
    process.exitCode = 1;
    return;
  }
  // The one place the service's mount path is chosen: everything below takes it from `parts`.
  const mountPath = DEFAULT_API_PATH;
  try {
    const config = await withKeptKey(loaded.config);
    // Before the storage: the SDK must see `pg` load to trace its queries.
    const tracing = await startTracing(env, mountPath);
    const logger = createLogger(config.logLevel, undefined, tracing?.logFields);
    const { storage, description, poolCounts, replicaReads } = await openStorage(config, logger);
    const metrics = config.metrics ? createMetrics({ poolCounts, replicaReads }) : undefined;
    const seeded = await seedPets(storage, config.seedPets);
    const preempted = preemptedRequests();
    const store = createPetStore({
      storage,
      apiKeys: config.apiKeys,
      publicPath: mountPath,
      servers: config.servers,
      idempotency: {
        scopeSecret: config.scopeSecret,
        previousScopeSecrets: config.previousScopeSecrets,
      },
      loadShedding: config.loadShedding,
      hooks: {
        ...withMetrics(preempted.filter(loggingHooks(logger)), metrics),
        ...(tracing === undefined ? {} : { aroundOperation: tracing.aroundOperation }),
      },
    });
    let stopping = (): boolean => false;
    const host = createHostRoutes({
      storage,
      logger,
      stopping: () => stopping(),
      metrics,
      readyRequiresStorage: config.readyRequiresStorage,
    });
    const docs = config.docs
      ? createApiReference({ publicPath: mountPath, title: 'Pet store API reference' })
      : undefined;
    const { address, drain } = await serve({
      config,
      store,
      mountPath,
      host,
      docs,
      logger,
      stopping: () => stopping(),
      preempted,
      tracing,
      metrics,
    });
    const management =
      config.managementPort === undefined
        ? undefined
        : await startManagementListener(managementRoutes(host), host, {
            host: config.managementHost,
            port: config.managementPort,
          });
    const facts = {
      address,
      publicPath: mountPath,
      storage: description,
      seeded,
      config,
      management: management?.address,
    };
    stopping = handleShutdownSignals({
      drain,
      // Probes keep their answers (503: stopping) until the API is drained.
      close: () =>
        Promise.all([management?.close(), storage.close(), tracing?.shutdown()]).then(
          () => undefined,
        ),
      timeoutMs: config.shutdownTimeoutMs,
      delayMs: config.shutdownDelayMs,
      logger,
    });
    // Last: whoever reads the banner (a person, a supervisor, a test) may signal at once.
    for (const line of bannerLines(facts)) console.log(line);
  } catch (error) {
    console.error('start-up failed:', error instanceof Error ? error.message : error);
    process.exit(1);
  }
}
