import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type ConfigResult, loadConfig, MAX_SEED_PETS } from '../src/config.js';

const errorsOf = (result: ConfigResult): readonly string[] => (result.ok ? [] : result.errors);
const configOf = (result: ConfigResult) => {
  if (!result.ok) throw new Error(`unexpected config errors: ${result.errors.join('; ')}`);
  return result.config;
};

const GOOD = 'good-key-0123456789';

describe('loadConfig', () => {
  it('has defaults for everything, and makes up a key when none is given', () => {
    expect(configOf(loadConfig({ XDG_DATA_HOME: '/srv/data' }, () => 'made-up'))).toEqual({
      port: 3000,
      host: '127.0.0.1',
      apiKeys: ['made-up'],
      keyGenerated: true,
      storage: { kind: 'sqlite', path: '/srv/data/petstore/pets.db', byDefault: true },
      seedPets: 0,
      shutdownTimeoutMs: 10_000,
      logLevel: 'info',
      metrics: true,
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      keepAliveTimeoutMs: 5_000,
      maxConnections: 10_000,
      servers: [],
      docs: true,
      managementPort: 9464,
      managementHost: '127.0.0.1',
      metricsOnApiPort: false,
      maxConnectionsPerAddress: 64,
      ipv6PrefixLength: 64,
      trustedProxies: [],
      firstByteTimeoutMs: 2_000,
      shutdownDelayMs: 0,
      pgPoolMax: 10,
      readyRequiresStorage: false,
      scopeSecret: undefined,
      previousScopeSecrets: [],
      loadShedding: {
        maxEventLoopDelayMs: 1_000,
        maxHeapUsedBytes: 0,
        maxInFlight: 0,
        retryAfterSeconds: 10,
      },
    });
  });

  it('limits requests in flight on PostgreSQL by default, from the pool it builds: 4 x PG_POOL_MAX, overridable, 0 off', () => {
    const inFlight = (env: Record<string, string>) =>
      configOf(loadConfig(env)).loadShedding.maxInFlight;
    const postgres = { DATABASE_URL: 'postgres://petstore@127.0.0.1:5432/pets' };
    expect(inFlight(postgres)).toBe(40);
    expect(inFlight({ ...postgres, PG_POOL_MAX: '16' })).toBe(64);
    expect(inFlight({ ...postgres, PG_POOL_MAX: '16', LOAD_SHEDDING_MAX_IN_FLIGHT: '100' })).toBe(
      100,
    );
    expect(inFlight({ ...postgres, LOAD_SHEDDING_MAX_IN_FLIGHT: '0' })).toBe(0);
    // An empty variable counts as unset.
    expect(inFlight({ ...postgres, LOAD_SHEDDING_MAX_IN_FLIGHT: ' ' })).toBe(40);
    // SQLite and memory answer on the event loop, whose delay shows their backlog: no limit.
    for (const DATABASE_URL of ['memory:', 'sqlite:./pets.db', '']) {
      expect(inFlight({ DATABASE_URL, PG_POOL_MAX: '16' })).toBe(0);
    }
    expect(inFlight({ DATABASE_URL: 'memory:', LOAD_SHEDDING_MAX_IN_FLIGHT: '8' })).toBe(8);
  });

  it('generates a fresh random key each start', () => {
    const [first, second] = [loadConfig({}), loadConfig({})].map(
      (result) => configOf(result).apiKeys[0],
    );
    expect(first).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(second).not.toBe(first);
  });

  it('reads every variable, trimming blanks, and treats empty as unset', () => {
    const config = configOf(
      loadConfig({
        PORT: ' 8080 ',
        HOST: '0.0.0.0',
        API_KEYS: 'alpha-0123456789ab, ops:beta-0123456789ab=',
        DATABASE_URL: 'postgres://user:secret@127.0.0.1:5432/pets',
        SEED_PETS: '5',
        SHUTDOWN_TIMEOUT_MS: '2500',
        LOG_LEVEL: 'DEBUG',
        METRICS: 'OFF',
        HEADERS_TIMEOUT_MS: '2000',
        REQUEST_TIMEOUT_MS: '4000',
        KEEP_ALIVE_TIMEOUT_MS: '1000',
        MAX_CONNECTIONS: '50',
        PRODUCTION_BASE_URL: 'https://api.example.com/v1',
        STAGING_BASE_URL: 'http://127.0.0.1:8080/staging/v1',
        DOCS: 'OFF',
        MANAGEMENT_PORT: '9000',
        MANAGEMENT_HOST: '0.0.0.0',
        METRICS_ON_API_PORT: 'ON',
        MAX_CONNECTIONS_PER_ADDRESS: '10',
        IPV6_PREFIX_LENGTH: '56',
        TRUSTED_PROXIES: '10.0.0.5, fd00::1',
        FIRST_BYTE_TIMEOUT_MS: '500',
        SHUTDOWN_DELAY_MS: '15000',
        PG_POOL_MAX: '4',
        READY_REQUIRES_STORAGE: 'on',
        IDEMPOTENCY_SCOPE_SECRET: 'fleet-secret-0123456789',
        IDEMPOTENCY_PREVIOUS_SCOPE_SECRETS: ' older-secret-0123456789 ,NONE,',
        LOAD_SHEDDING_MAX_EVENT_LOOP_DELAY_MS: '250',
        LOAD_SHEDDING_MAX_HEAP_USED_BYTES: '1610612736',
        LOAD_SHEDDING_MAX_IN_FLIGHT: ' 40 ',
        LOAD_SHEDDING_RETRY_AFTER_SECONDS: '2',
      }),
    );
    expect(config).toEqual({
      port: 8080,
      host: '0.0.0.0',
      apiKeys: ['alpha-0123456789ab', { id: 'ops', key: 'beta-0123456789ab=' }],
      keyGenerated: false,
      storage: { kind: 'postgres', url: 'postgres://user:secret@127.0.0.1:5432/pets' },
      seedPets: 5,
      shutdownTimeoutMs: 2500,
      logLevel: 'debug',
      metrics: false,
      headersTimeoutMs: 2000,
      requestTimeoutMs: 4000,
      keepAliveTimeoutMs: 1000,
      maxConnections: 50,
      servers: [
        { url: 'https://api.example.com/v1', description: 'Production' },
        { url: 'http://127.0.0.1:8080/staging/v1', description: 'Staging' },
      ],
      docs: false,
      managementPort: 9000,
      managementHost: '0.0.0.0',
      metricsOnApiPort: true,
      maxConnectionsPerAddress: 10,
      ipv6PrefixLength: 56,
      // An IPv4 balancer is also seen as ::ffff:a.b.c.d on a dual-stack socket.
      trustedProxies: ['10.0.0.5', '::ffff:10.0.0.5', 'fd00::1'],
      firstByteTimeoutMs: 500,
      shutdownDelayMs: 15_000,
      pgPoolMax: 4,
      readyRequiresStorage: true,
      scopeSecret: 'fleet-secret-0123456789',
      previousScopeSecrets: ['older-secret-0123456789', 'none'],
      loadShedding: {
        maxEventLoopDelayMs: 250,
        maxHeapUsedBytes: 1_610_612_736,
        maxInFlight: 40,
        retryAfterSeconds: 2,
      },
    });
    expect(configOf(loadConfig({ MANAGEMENT_PORT: 'off' })).managementPort).toBeUndefined();
    expect(
      errorsOf(
        loadConfig({
          TRUSTED_PROXIES: 'lb.internal',
          PG_POOL_MAX: '0',
          IDEMPOTENCY_SCOPE_SECRET: 'short',
          IDEMPOTENCY_PREVIOUS_SCOPE_SECRETS: 'none,short-secret',
          LOAD_SHEDDING_MAX_EVENT_LOOP_DELAY_MS: '1s',
          LOAD_SHEDDING_MAX_HEAP_USED_BYTES: '-1',
          LOAD_SHEDDING_MAX_IN_FLIGHT: '1.5',
          LOAD_SHEDDING_RETRY_AFTER_SECONDS: '0.5',
        }),
      ),
    ).toEqual([
      'TRUSTED_PROXIES holds "lb.internal", not an IP address',
      'IDEMPOTENCY_SCOPE_SECRET must be at least 16 characters (for example: openssl rand -hex 16)',
      'IDEMPOTENCY_PREVIOUS_SCOPE_SECRETS entry 2 must be none or a secret of at least 16 characters',
      'PG_POOL_MAX must be an integer from 1 to 10000, got "0"',
      'LOAD_SHEDDING_MAX_EVENT_LOOP_DELAY_MS must be an integer from 0 to 600000, got "1s"',
      'LOAD_SHEDDING_MAX_HEAP_USED_BYTES must be an integer from 0 to 9007199254740991, got "-1"',
      'LOAD_SHEDDING_MAX_IN_FLIGHT must be an integer from 0 to 1000000, got "1.5"',
      'LOAD_SHEDDING_RETRY_AFTER_SECONDS must be an integer from 0 to 86400, got "0.5"',
    ]);
    // 0 turns a check off; all off, the core sheds nothing.
    expect(
      configOf(
        loadConfig({
          LOAD_SHEDDING_MAX_EVENT_LOOP_DELAY_MS: '0',
          LOAD_SHEDDING_MAX_HEAP_USED_BYTES: '0',
          LOAD_SHEDDING_MAX_IN_FLIGHT: '0',
        }),
      ).loadShedding,
    ).toEqual({
      maxEventLoopDelayMs: 0,
      maxHeapUsedBytes: 0,
      maxInFlight: 0,
      retryAfterSeconds: 10,
    });
    expect(configOf(loadConfig({ API_KEYS: '', PORT: '', DATABASE_URL: ' ' })).keyGenerated).toBe(
      true,
    );
    expect(configOf(loadConfig({ PORT: '0' })).port).toBe(0);
  });

  it.each([
    ['abc', 'PORT must be an integer from 0 to 65535, got "abc"'],
    ['65536', 'PORT must be an integer from 0 to 65535, got "65536"'],
    ['-1', 'PORT must be an integer from 0 to 65535, got "-1"'],
    ['80.5', 'PORT must be an integer from 0 to 65535, got "80.5"'],
    ['1e3', 'PORT must be an integer from 0 to 65535, got "1e3"'],
  ])('refuses PORT=%s', (port, message) => {
    expect(errorsOf(loadConfig({ PORT: port }))).toEqual([message]);
  });

  it('refuses API keys that no Authorization header could carry, without printing them', () => {
    expect(errorsOf(loadConfig({ API_KEYS: `${GOOD},,other` }))).toEqual([
      'API_KEYS entry 2 is empty (keys are separated by commas)',
    ]);
    const [message] = errorsOf(loadConfig({ API_KEYS: `${GOOD},top secret key 0123456` }));
    expect(message).toMatch(/^API_KEYS entry 2 has characters a bearer token cannot carry/);
    expect(message).not.toContain('secret');
  });

  it('refuses keys shorter than 16 characters, without printing them', () => {
    const short = 'fifteen-chars-x';
    expect(short).toHaveLength(15);
    expect(errorsOf(loadConfig({ API_KEYS: `${GOOD},${short}` }))).toEqual([
      'API_KEYS entry 2 is shorter than 16 characters; use a long random key (for example: openssl rand -hex 16)',
    ]);
    expect(errorsOf(loadConfig({ API_KEYS: `ops:${short}` }))).toEqual([
      'API_KEYS entry 1 is shorter than 16 characters; use a long random key (for example: openssl rand -hex 16)',
    ]);
    expect(errorsOf(loadConfig({ API_KEYS: 'x' }))).toHaveLength(1);
    expect(configOf(loadConfig({ API_KEYS: `${short}y` })).apiKeys).toEqual([`${short}y`]);
  });

  it('reads id:key pairs, the id before the first colon, and refuses a bad id', () => {
    expect(
      configOf(loadConfig({ API_KEYS: `alice:${GOOD}, bob.2:${GOOD}x, ${GOOD}y` })).apiKeys,
    ).toEqual([{ id: 'alice', key: GOOD }, { id: 'bob.2', key: `${GOOD}x` }, `${GOOD}y`]);
    for (const entry of [`:${GOOD}`, `a b:${GOOD}`, `${'i'.repeat(65)}:${GOOD}`]) {
      expect(errorsOf(loadConfig({ API_KEYS: entry })), entry).toEqual([
        'API_KEYS entry 1 has an id that is not 1 to 64 of A-Z a-z 0-9 . _ - (entries are key or id:key)',
      ]);
    }
    const [message] = errorsOf(loadConfig({ API_KEYS: `alice:${GOOD}:more` }));
    expect(message).toMatch(/^API_KEYS entry 1 has characters a bearer token cannot carry/);
    expect(message).not.toContain(GOOD);
  });

  it('reads the storage from DATABASE_URL: its scheme picks it', () => {
    const storageOf = (url: string | undefined, env = {}) =>
      configOf(loadConfig({ DATABASE_URL: url, ...env })).storage;
    expect(storageOf(undefined, { XDG_DATA_HOME: '/x' })).toEqual({
      kind: 'sqlite',
      path: '/x/petstore/pets.db',
      byDefault: true,
    });
    expect(storageOf(undefined, { HOME: '/home/pat' })).toMatchObject({
      path: join(homedir(), '.local', 'share', 'petstore', 'pets.db'),
    });
    expect(storageOf('sqlite:/var/lib/petstore/pets.db')).toEqual({
      kind: 'sqlite',
      path: '/var/lib/petstore/pets.db',
      byDefault: false,
    });
    expect(storageOf('sqlite:///var/lib/petstore/pets.db')).toMatchObject({
      path: '/var/lib/petstore/pets.db',
    });
    expect(storageOf('sqlite:pets.db')).toMatchObject({ path: resolve('pets.db') });
    expect(storageOf('memory:')).toEqual({ kind: 'memory' });
    expect(storageOf('postgresql://127.0.0.1/pets')).toEqual({
      kind: 'postgres',
      url: 'postgresql://127.0.0.1/pets',
    });
  });

  it('reads DATABASE_READ_URL (reads from a replica) with a PostgreSQL DATABASE_URL only, without printing it', () => {
    const primary = 'postgres://app:secret@haproxy:5000/pets';
    const replica = 'postgres://app:secret@haproxy:5001/pets';
    expect(
      configOf(loadConfig({ DATABASE_URL: primary, DATABASE_READ_URL: replica })).storage,
    ).toEqual({ kind: 'postgres', url: primary, readUrl: replica });
    expect(errorsOf(loadConfig({ DATABASE_URL: 'memory:', DATABASE_READ_URL: replica }))).toEqual([
      'DATABASE_READ_URL needs a postgres:// or postgresql:// DATABASE_URL',
    ]);
    expect(
      errorsOf(loadConfig({ DATABASE_URL: primary, DATABASE_READ_URL: 'mysql://u:hunter2@db/x' })),
    ).toEqual(['DATABASE_READ_URL must be a postgres:// or postgresql:// URL']);
  });

  it('refuses any other DATABASE_URL, without printing it', () => {
    for (const url of ['mysql://root:hunter2@db/pets', 'not a url:hunter2', 'memory:hunter2']) {
      const errors = errorsOf(loadConfig({ DATABASE_URL: url }));
      expect(errors).toEqual([
        'DATABASE_URL must be sqlite:<file>, postgres://..., postgresql://... or memory:',
      ]);
    }
    expect(errorsOf(loadConfig({ DATABASE_URL: 'sqlite:' }))).toEqual([
      'DATABASE_URL=sqlite: needs a file, e.g. sqlite:./pets.db',
    ]);
  });

  it('refuses what SQLite would read as a name or URI rather than take it for part of a file name', () => {
    const refusal = (url: string) => errorsOf(loadConfig({ DATABASE_URL: url }));
    for (const url of ['sqlite::memory:', 'sqlite:file:pets.db', 'sqlite:FILE:pets.db?mode=ro']) {
      expect(refusal(url)).toEqual([
        'DATABASE_URL=sqlite: takes a file path, not a SQLite name or URI (:memory:, file:); for pets in memory use DATABASE_URL=memory:',
      ]);
    }
    for (const url of ['sqlite:x.db?mode=ro', 'sqlite:./pets.db#v', 'sqlite:/tmp/my%20pets.db']) {
      expect(refusal(url)).toEqual([
        'DATABASE_URL=sqlite:<file> takes a plain file path: query parameters (such as ?mode=ro), # and %-escapes are not read, so a path holding ?, # or % is refused',
      ]);
    }
    expect(refusal('sqlite://pets.db')).toEqual([
      'DATABASE_URL=sqlite://<host>/... names a host; a file is sqlite:./pets.db, sqlite:/var/lib/petstore/pets.db or sqlite:///var/lib/petstore/pets.db',
    ]);
  });

  it('quotes no credential of a bad value: a URL is shown without its user, password and query', () => {
    const errors = errorsOf(
      loadConfig({
        PRODUCTION_BASE_URL: 'https://deploy:S3cretPW@api.example.com/v2',
        STAGING_BASE_URL: 'https://api.example.com/v1?token=S3cretToken',
        PORT: 'postgres://app:S3cretPG@db/pets',
        LOG_LEVEL: 'https://x:S3cretLog@example.com',
      }),
    );
    expect(errors.join('\n')).not.toMatch(/S3cret|deploy|app:/);
    expect(errors).toEqual([
      'PORT must be an integer from 0 to 65535, got "postgres://***@db/pets"',
      'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "https://***@example.com"',
      'PRODUCTION_BASE_URL must be an http:// or https:// URL ending in /v1 (no query, no user or password), got "https://***@api.example.com/v2"',
      'STAGING_BASE_URL must be an http:// or https:// URL ending in /v1 (no query, no user or password), got "https://api.example.com/v1?***"',
    ]);
    // A password alone is refused too, and shown no more than a user is.
    expect(
      errorsOf(loadConfig({ PRODUCTION_BASE_URL: 'https://:S3cret@api.example.com/v1' })),
    ).toEqual([
      'PRODUCTION_BASE_URL must be an http:// or https:// URL ending in /v1 (no query, no user or password), got "https://***@api.example.com/v1"',
    ]);
  });

  it('reads LOAD_SHEDDING_MAX_IN_FLIGHT: off (0) by default, a whole number up to a million', () => {
    const inFlight = (value: string | undefined) =>
      loadConfig(value === undefined ? {} : { LOAD_SHEDDING_MAX_IN_FLIGHT: value });
    expect(configOf(inFlight(undefined)).loadShedding.maxInFlight).toBe(0);
    expect(configOf(inFlight('0')).loadShedding.maxInFlight).toBe(0);
    expect(configOf(inFlight('40')).loadShedding.maxInFlight).toBe(40);
    expect(configOf(inFlight('1000000')).loadShedding.maxInFlight).toBe(1_000_000);
    for (const bad of ['-1', '1.5', 'x', '4e1', '1000001']) {
      expect(errorsOf(inFlight(bad))).toEqual([
        `LOAD_SHEDDING_MAX_IN_FLIGHT must be an integer from 0 to 1000000, got ${JSON.stringify(bad)}`,
      ]);
    }
  });

  it('bounds SEED_PETS and SHUTDOWN_TIMEOUT_MS', () => {
    expect(errorsOf(loadConfig({ SEED_PETS: String(MAX_SEED_PETS + 1) }))).toEqual([
      `SEED_PETS must be an integer from 0 to ${MAX_SEED_PETS}, got "${MAX_SEED_PETS + 1}"`,
    ]);
    expect(errorsOf(loadConfig({ SHUTDOWN_TIMEOUT_MS: 'soon' }))).toEqual([
      'SHUTDOWN_TIMEOUT_MS must be an integer from 0 to 600000, got "soon"',
    ]);
  });

  it('accepts the pino levels for LOG_LEVEL, and nothing else', () => {
    expect(configOf(loadConfig({ LOG_LEVEL: 'silent' })).logLevel).toBe('silent');
    expect(errorsOf(loadConfig({ LOG_LEVEL: 'verbose' }))).toEqual([
      'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "verbose"',
    ]);
  });

  it('takes on or off for METRICS, and nothing else', () => {
    expect(configOf(loadConfig({ METRICS: 'on' })).metrics).toBe(true);
    expect(errorsOf(loadConfig({ METRICS: 'no' }))).toEqual([
      'METRICS must be on or off, got "no"',
    ]);
  });

  it('reports every problem at once', () => {
    expect(errorsOf(loadConfig({ PORT: 'x', SEED_PETS: 'y', API_KEYS: ',' }))).toHaveLength(3);
  });

  it('bounds the connection limits, and keeps the request timeout at least the headers timeout', () => {
    expect(errorsOf(loadConfig({ HEADERS_TIMEOUT_MS: '0' }))).toEqual([
      'HEADERS_TIMEOUT_MS must be an integer from 1 to 600000, got "0"',
    ]);
    expect(errorsOf(loadConfig({ MAX_CONNECTIONS: 'lots', KEEP_ALIVE_TIMEOUT_MS: '-5' }))).toEqual([
      'KEEP_ALIVE_TIMEOUT_MS must be an integer from 1 to 600000, got "-5"',
      'MAX_CONNECTIONS must be an integer from 1 to 1000000, got "lots"',
    ]);
    expect(
      errorsOf(loadConfig({ HEADERS_TIMEOUT_MS: '5000', REQUEST_TIMEOUT_MS: '4000' })),
    ).toEqual(['REQUEST_TIMEOUT_MS (4000) must not be less than HEADERS_TIMEOUT_MS (5000)']);
  });

  it('takes only http(s) base URLs ending in /v1 for the document servers', () => {
    for (const url of [
      'https://api.example.com',
      'https://api.example.com/v1/',
      'https://api.example.com/v2',
      'https://api.example.com/v1?x=1',
      'ftp://api.example.com/v1',
      'api.example.com/v1',
    ]) {
      expect(errorsOf(loadConfig({ STAGING_BASE_URL: url }))).toEqual([
        `STAGING_BASE_URL must be an http:// or https:// URL ending in /v1 (no query, no user or password), got ${JSON.stringify(url.replace(/\?.*/, '?***'))}`,
      ]);
    }
    expect(
      configOf(loadConfig({ PRODUCTION_BASE_URL: 'https://api.example.com/v1' })).servers,
    ).toEqual([{ url: 'https://api.example.com/v1', description: 'Production' }]);
  });
});
