import { isIP } from 'node:net';

/** How the service runs among others: its management port, connection fairness, drain, pool. */
export interface OperationSettings {
  /** Port of the management listener (`/healthz`, `/readyz`, `/metrics`); undefined: none. */
  readonly managementPort: number | undefined;
  readonly managementHost: string;
  /** `/metrics` on the API port too (METRICS_ON_API_PORT=on); off by default. */
  readonly metricsOnApiPort: boolean;
  /** Open connections one client address may hold on the API port. */
  readonly maxConnectionsPerAddress: number;
  /** IPv6 clients are counted by this prefix (one host is given a /64). */
  readonly ipv6PrefixLength: number;
  /** Addresses exempt from that cap: behind a balancer every connection comes from it. */
  readonly trustedProxies: readonly string[];
  /** A connection that has sent no byte within this is closed. */
  readonly firstByteTimeoutMs: number;
  /** After SIGTERM/SIGINT: /readyz answers 503 at once, the API serves this long, then drains. */
  readonly shutdownDelayMs: number;
  /** Connections of this instance's PostgreSQL pool. */
  readonly pgPoolMax: number;
  /** /readyz fails while the storage cannot answer (READY_REQUIRES_STORAGE=on); off by default. */
  readonly readyRequiresStorage: boolean;
  /** `idempotency.scopeSecret` (IDEMPOTENCY_SCOPE_SECRET): the same on every instance. */
  readonly scopeSecret: string | undefined;
  /**
   * `idempotency.previousScopeSecrets` (IDEMPOTENCY_PREVIOUS_SCOPE_SECRETS): the secrets used
   * before IDEMPOTENCY_SCOPE_SECRET, and `none` for a setup without one; their claims still replay.
   */
  readonly previousScopeSecrets: readonly string[];
  /**
   * The core's `loadShedding` (LOAD_SHEDDING_*): answer 503 with `Retry-After` at once while the
   * event loop is late, the heap full or too many requests in flight past a limit; 0 turns a
   * check off.
   */
  readonly loadShedding: {
    readonly maxEventLoopDelayMs: number;
    readonly maxHeapUsedBytes: number;
    readonly maxInFlight: number;
    readonly retryAfterSeconds: number;
  };
}

export const OPERATION_DEFAULTS = {
  MANAGEMENT_PORT: 9464,
  MANAGEMENT_HOST: '127.0.0.1',
  MAX_CONNECTIONS_PER_ADDRESS: 64,
  IPV6_PREFIX_LENGTH: 64,
  FIRST_BYTE_TIMEOUT_MS: 2_000,
  SHUTDOWN_DELAY_MS: 0,
  PG_POOL_MAX: 10,
  // The core's defaults: a healthy loop is never a second late; only you know the heap's limit.
  // A limit on requests in flight follows the pool's size: see inFlightByDefault.
  LOAD_SHEDDING_MAX_EVENT_LOOP_DELAY_MS: 1_000,
  LOAD_SHEDDING_MAX_HEAP_USED_BYTES: 0,
  LOAD_SHEDDING_MAX_IN_FLIGHT: 0,
  LOAD_SHEDDING_RETRY_AFTER_SECONDS: 10,
} as const;

/** LOAD_SHEDDING_MAX_IN_FLIGHT unset on PostgreSQL: this many per connection of the pool. */
export const IN_FLIGHT_PER_POOL_CONNECTION = 4;

/**
 * The in-flight limit when LOAD_SHEDDING_MAX_IN_FLIGHT is unset. On PostgreSQL past capacity the
 * backlog forms in the pool, awaiting a connection, where the event loop check never sees it:
 * the service builds that pool (PG_POOL_MAX), so it knows the limit, 4 × its connections (enough
 * to keep each busy, a queue of a few round trips at most). SQLite and memory answer on the
 * event loop itself, where its delay already shows a backlog: no limit.
 */
export function inFlightByDefault(storage: string | undefined, pgPoolMax: number): number {
  return storage === 'postgres' ? IN_FLIGHT_PER_POOL_CONNECTION * pgPoolMax : 0;
}

type Read = (name: string) => string | undefined;

function whole(name: string, text: string, min: number, max: number, errors: string[]): number {
  const value = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (Number.isSafeInteger(value) && value >= min && value <= max) return value;
  errors.push(`${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(text)}`);
  return 0;
}

function onOff(name: string, text: string | undefined, errors: string[]): boolean {
  const value = (text ?? 'off').toLowerCase();
  if (value !== 'on' && value !== 'off') {
    errors.push(`${name} must be on or off, got ${JSON.stringify(text)}`);
  }
  return value === 'on';
}

/**
 * The operations variables; pushes a message per bad value. `storage` is the kind DATABASE_URL
 * names (`postgres`, ...), for the defaults that follow from it.
 */
export function readOperationSettings(
  read: Read,
  errors: string[],
  storage?: string,
): OperationSettings {
  const number = (name: keyof typeof OPERATION_DEFAULTS, min: number, max: number): number =>
    whole(name, read(name) ?? String(OPERATION_DEFAULTS[name]), min, max, errors);
  const port = read('MANAGEMENT_PORT');
  const managementPort =
    port?.toLowerCase() === 'off' ? undefined : number('MANAGEMENT_PORT', 0, 65_535);
  const managementHost = read('MANAGEMENT_HOST') ?? OPERATION_DEFAULTS.MANAGEMENT_HOST;
  const trustedProxies = (read('TRUSTED_PROXIES') ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  for (const address of trustedProxies) {
    if (isIP(address) === 0)
      errors.push(`TRUSTED_PROXIES holds ${JSON.stringify(address)}, not an IP address`);
  }
  const scopeSecret = read('IDEMPOTENCY_SCOPE_SECRET');
  if (scopeSecret !== undefined && scopeSecret.length < 16) {
    errors.push(
      'IDEMPOTENCY_SCOPE_SECRET must be at least 16 characters (for example: openssl rand -hex 16)',
    );
  }
  // Secrets are never echoed: a bad entry is named by its position.
  const previousScopeSecrets = (read('IDEMPOTENCY_PREVIOUS_SCOPE_SECRETS') ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry, index) => {
      if (entry.toLowerCase() === 'none') return 'none';
      if (entry.length < 16) {
        errors.push(
          `IDEMPOTENCY_PREVIOUS_SCOPE_SECRETS entry ${index + 1} must be none or a secret of at least 16 characters`,
        );
      }
      return entry;
    });
  const pgPoolMax = number('PG_POOL_MAX', 1, 10_000);
  return {
    scopeSecret,
    previousScopeSecrets,
    managementPort,
    managementHost,
    metricsOnApiPort: onOff('METRICS_ON_API_PORT', read('METRICS_ON_API_PORT'), errors),
    maxConnectionsPerAddress: number('MAX_CONNECTIONS_PER_ADDRESS', 1, 1_000_000),
    ipv6PrefixLength: number('IPV6_PREFIX_LENGTH', 1, 128),
    // Node reports IPv4 peers of a dual-stack socket as ::ffff:a.b.c.d: both spellings count.
    trustedProxies: trustedProxies.flatMap((address) =>
      isIP(address) === 4 ? [address, `::ffff:${address}`] : [address],
    ),
    firstByteTimeoutMs: number('FIRST_BYTE_TIMEOUT_MS', 1, 600_000),
    shutdownDelayMs: number('SHUTDOWN_DELAY_MS', 0, 600_000),
    pgPoolMax,
    readyRequiresStorage: onOff('READY_REQUIRES_STORAGE', read('READY_REQUIRES_STORAGE'), errors),
    loadShedding: {
      maxEventLoopDelayMs: number('LOAD_SHEDDING_MAX_EVENT_LOOP_DELAY_MS', 0, 600_000),
      maxHeapUsedBytes: number('LOAD_SHEDDING_MAX_HEAP_USED_BYTES', 0, Number.MAX_SAFE_INTEGER),
      maxInFlight:
        read('LOAD_SHEDDING_MAX_IN_FLIGHT') === undefined
          ? inFlightByDefault(storage, pgPoolMax)
          : number('LOAD_SHEDDING_MAX_IN_FLIGHT', 0, 1_000_000),
      retryAfterSeconds: number('LOAD_SHEDDING_RETRY_AFTER_SECONDS', 0, 86_400),
    },
  };
}
