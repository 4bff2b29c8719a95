import { randomBytes } from 'node:crypto';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { type ApiKey, DEFAULT_API_PATH, type ServerEntry } from '@petstore/core';
import { type OperationSettings, readOperationSettings } from './operations-config.js';

export interface AppConfig extends OperationSettings {
  readonly port: number;
  readonly host: string;
  /** `id:key` entries become `{ id, key }`: Idempotency-Keys are then scoped by the id. */
  readonly apiKeys: readonly ApiKey[];
  /** True when no API_KEYS were given and the one key was made up at start. */
  readonly keyGenerated: boolean;
  /** Where a generated key is kept across restarts (see `withKeptKey`); unset: made anew each start. */
  readonly keyFile?: string;
  /** Where the pets live: DATABASE_URL's scheme picks the storage (see `storageChoice`). */
  readonly storage: StorageChoice;
  /** Demo pets to create at start when the storage is empty. */
  readonly seedPets: number;
  /** How long in-flight requests may take to finish after SIGTERM/SIGINT. */
  readonly shutdownTimeoutMs: number;
  /** Lowest pino level written to stdout. */
  readonly logLevel: LogLevel;
  /** `GET /metrics` served (METRICS=on, the default) or not (METRICS=off). */
  readonly metrics: boolean;
  /** The API reference at `GET /docs` served (DOCS=on, the default) or not (DOCS=off). */
  readonly docs: boolean;
  // --- connection limits and servers: see `readServingSettings` below ---
  /** Longest time from a connection's first byte of a request to its last header. */
  readonly headersTimeoutMs: number;
  /** Longest time to receive a whole request, headers and body. */
  readonly requestTimeoutMs: number;
  /** How long an idle keep-alive connection stays open. */
  readonly keepAliveTimeoutMs: number;
  /** Connections beyond this many are closed as soon as they are accepted. */
  readonly maxConnections: number;
  /** The OpenAPI document's `servers`; empty: the service's own mount path. */
  readonly servers: readonly ServerEntry[];
  // --- end of connection limits and servers ---
}

/** What DATABASE_URL says: a SQLite file (the default), PostgreSQL, or memory. */
export type StorageChoice =
  | { readonly kind: 'sqlite'; readonly path: string; readonly byDefault: boolean }
  | {
      readonly kind: 'postgres';
      readonly url: string;
      /** DATABASE_READ_URL: reads from a replica (docs/operations.md, "A PostgreSQL cluster"). */
      readonly readUrl?: string;
    }
  | { readonly kind: 'memory' };

export type ConfigResult =
  | { readonly ok: true; readonly config: AppConfig }
  | { readonly ok: false; readonly errors: readonly string[] };

export type Env = Readonly<Record<string, string | undefined>>;

export const MAX_SEED_PETS = 1000;

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

// Wrapped in an object: a bare level is a string, which `check` below reads as an error.
const logLevel = (text: string): { readonly level: LogLevel } | string => {
  const level = LOG_LEVELS.find((name) => name === text.toLowerCase());
  return level === undefined
    ? `LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got ${shown(text)}`
    : { level };
};

/** RFC 6750 b64token: anything else could never arrive in `Authorization: Bearer <key>`. */
const BEARER_TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

const generateKey = (): string => randomBytes(24).toString('base64url');

/**
 * A value quoted in a message, without what could be a credential: everything before its last
 * `@` (`https://user:pw@host` is shown as `https://***@host`) and any query, whatever the variable.
 */
export function shown(text: string): string {
  const hidden = text
    .replace(
      /^([a-z][a-z0-9+.-]*:\/\/)?.*@/is,
      (_, scheme: string | undefined) => `${scheme ?? ''}***@`,
    )
    .replace(/\?.*$/s, '?***');
  return JSON.stringify(hidden);
}

/** A decimal integer in [min, max], or the reason it is not one. */
function integer(name: string, text: string, min: number, max: number): number | string {
  const value = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  return Number.isSafeInteger(value) && value >= min && value <= max
    ? value
    : `${name} must be an integer from ${min} to ${max}, got ${shown(text)}`;
}

/** Shorter keys can be guessed or brute-forced; a random 16 characters cannot. */
export const MIN_API_KEY_LENGTH = 16;

/** Whether `key` could be an API key: a bearer token of at least MIN_API_KEY_LENGTH characters. */
export const isUsableKey = (key: string): boolean =>
  BEARER_TOKEN.test(key) && key.length >= MIN_API_KEY_LENGTH;

/** The `id` of an `id:key` entry. A key itself cannot hold `:`, so the first one splits. */
const KEY_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** One `key` or `id:key` entry, or what is wrong with it (by position: keys are secrets, never echoed). */
function apiKey(entry: string, position: number): { readonly key: ApiKey } | string {
  if (entry === '') return `API_KEYS entry ${position} is empty (keys are separated by commas)`;
  const colon = entry.indexOf(':');
  const id = colon === -1 ? undefined : entry.slice(0, colon);
  const key = colon === -1 ? entry : entry.slice(colon + 1);
  if (id !== undefined && !KEY_ID.test(id)) {
    return `API_KEYS entry ${position} has an id that is not 1 to 64 of A-Z a-z 0-9 . _ - (entries are key or id:key)`;
  }
  if (!BEARER_TOKEN.test(key)) {
    return `API_KEYS entry ${position} has characters a bearer token cannot carry (allowed: A-Z a-z 0-9 - . _ ~ + / and trailing =)`;
  }
  if (key.length < MIN_API_KEY_LENGTH) {
    return `API_KEYS entry ${position} is shorter than ${MIN_API_KEY_LENGTH} characters; use a long random key (for example: openssl rand -hex 16)`;
  }
  return { key: id === undefined ? key : { id, key } };
}

function apiKeys(text: string): readonly ApiKey[] | string {
  const keys: ApiKey[] = [];
  for (const [index, entry] of text.split(',').entries()) {
    const parsed = apiKey(entry.trim(), index + 1);
    if (typeof parsed === 'string') return parsed;
    keys.push(parsed.key);
  }
  return keys;
}

/**
 * The default file: per user, outside any checkout (a new clone or a `git clean` keeps it), where
 * the XDG base directory spec puts an application's data: `$XDG_DATA_HOME/petstore/pets.db`,
 * else `~/.local/share/petstore/pets.db`.
 */
export function defaultDataFile(env: Env): string {
  const dataHome = env.XDG_DATA_HOME?.trim() || join(homedir(), '.local', 'share');
  return join(dataHome, 'petstore', 'pets.db');
}

const DATABASE_URL_FORMS =
  'DATABASE_URL must be sqlite:<file>, postgres://..., postgresql://... or memory:';

/** Whether `text` is a postgres:// or postgresql:// URL (never echoed: it may hold a password). */
function isPostgresUrl(text: string): boolean {
  try {
    const { protocol } = new URL(text);
    return protocol === 'postgres:' || protocol === 'postgresql:';
  } catch {
    return false;
  }
}

/**
 * `sqlite:./pets.db`, `sqlite:/var/lib/petstore/pets.db`, `sqlite:///var/lib/...`: a file path,
 * read as written. What SQLite's own names and URIs mean (`:memory:`, `?mode=ro`, `%20`) would be
 * taken here for parts of a file's name, so they are refused, saying what to write instead.
 */
function sqliteChoice(text: string): StorageChoice | string {
  const path = text.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
  if (path === '') return 'DATABASE_URL=sqlite: needs a file, e.g. sqlite:./pets.db';
  if (/^(:memory:|file:)/i.test(path)) {
    return 'DATABASE_URL=sqlite: takes a file path, not a SQLite name or URI (:memory:, file:); for pets in memory use DATABASE_URL=memory:';
  }
  if (path.startsWith('//')) {
    return 'DATABASE_URL=sqlite://<host>/... names a host; a file is sqlite:./pets.db, sqlite:/var/lib/petstore/pets.db or sqlite:///var/lib/petstore/pets.db';
  }
  if (/[?#%]/.test(path)) {
    return 'DATABASE_URL=sqlite:<file> takes a plain file path: query parameters (such as ?mode=ro), # and %-escapes are not read, so a path holding ?, # or % is refused';
  }
  return { kind: 'sqlite', path: resolve(path), byDefault: false };
}

/** DATABASE_URL's scheme picks the storage; unset is the default SQLite file. */
function storageChoice(text: string | undefined, env: Env): StorageChoice | string {
  if (text === undefined) return { kind: 'sqlite', path: defaultDataFile(env), byDefault: true };
  if (text === 'memory:') return { kind: 'memory' };
  if (/^sqlite:/i.test(text)) return sqliteChoice(text);
  return isPostgresUrl(text) ? { kind: 'postgres', url: text } : DATABASE_URL_FORMS;
}

/** DATABASE_READ_URL (a replica, for reads) joins a PostgreSQL DATABASE_URL, and only that. */
function withReadUrl(
  choice: StorageChoice | string,
  readUrl: string | undefined,
): StorageChoice | string {
  if (readUrl === undefined || typeof choice === 'string') return choice;
  if (choice.kind !== 'postgres') {
    return 'DATABASE_READ_URL needs a postgres:// or postgresql:// DATABASE_URL';
  }
  return isPostgresUrl(readUrl)
    ? { ...choice, readUrl }
    : 'DATABASE_READ_URL must be a postgres:// or postgresql:// URL';
}

/** An `on`/`off` switch (METRICS, DOCS). */
function onOff(name: string, text: string): { readonly on: boolean } | string {
  const value = text.toLowerCase();
  if (value === 'on') return { on: true };
  if (value === 'off') return { on: false };
  return `${name} must be on or off, got ${shown(text)}`;
}

/** Reads the environment; an empty variable counts as unset. */
export function loadConfig(env: Env, makeKey: () => string = generateKey): ConfigResult {
  const read = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value === '' ? undefined : value;
  };
  const errors: string[] = [];
  const check = <T>(result: T | string): T | undefined => {
    if (typeof result === 'string') {
      errors.push(result);
      return undefined;
    }
    return result;
  };

  const port = check(integer('PORT', read('PORT') ?? '3000', 0, 65_535));
  const keysText = read('API_KEYS');
  const keys = keysText === undefined ? undefined : check(apiKeys(keysText));
  const storage = check(
    withReadUrl(storageChoice(read('DATABASE_URL'), env), read('DATABASE_READ_URL')),
  );
  const seedPets = check(integer('SEED_PETS', read('SEED_PETS') ?? '0', 0, MAX_SEED_PETS));
  const shutdownTimeoutMs = check(
    integer('SHUTDOWN_TIMEOUT_MS', read('SHUTDOWN_TIMEOUT_MS') ?? '10000', 0, 600_000),
  );
  const level = check(logLevel(read('LOG_LEVEL') ?? 'info'))?.level;
  const metrics = check(onOff('METRICS', read('METRICS') ?? 'on'))?.on;
  const docs = check(onOff('DOCS', read('DOCS') ?? 'on'))?.on;
  const serving = readServingSettings(read, errors);
  const operations = readOperationSettings(read, errors, storage?.kind);

  if (
    errors.length > 0 ||
    port === undefined ||
    storage === undefined ||
    seedPets === undefined ||
    shutdownTimeoutMs === undefined ||
    level === undefined ||
    metrics === undefined ||
    docs === undefined ||
    serving === undefined
  ) {
    return { ok: false, errors };
  }
  return {
    ok: true,
    config: {
      port,
      host: read('HOST') ?? '127.0.0.1',
      apiKeys: keys ?? [makeKey()],
      keyGenerated: keysText === undefined,
      storage,
      seedPets,
      shutdownTimeoutMs,
      logLevel: level,
      metrics,
      docs,
      ...serving,
      ...operations,
    },
  };
}

// --- connection limits and servers ---

export const SERVING_DEFAULTS = {
  HEADERS_TIMEOUT_MS: 10_000,
  REQUEST_TIMEOUT_MS: 30_000,
  KEEP_ALIVE_TIMEOUT_MS: 5_000,
  MAX_CONNECTIONS: 10_000,
} as const;

type ServingSettings = Pick<
  AppConfig,
  'headersTimeoutMs' | 'requestTimeoutMs' | 'keepAliveTimeoutMs' | 'maxConnections' | 'servers'
>;

/** An absolute http(s) URL whose path ends in the mount path (the contract's base addresses), or why not. */
function baseUrl(name: string, text: string): string | { readonly url: string } {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    // reported below
  }
  const fine =
    url !== undefined &&
    (url.protocol === 'https:' || url.protocol === 'http:') &&
    url.pathname.endsWith(DEFAULT_API_PATH) &&
    url.search === '' &&
    url.hash === '' &&
    url.username === '' &&
    url.password === '';
  return fine
    ? { url: text }
    : `${name} must be an http:// or https:// URL ending in ${DEFAULT_API_PATH} (no query, no user or password), got ${shown(text)}`;
}

/** Node's HTTP server limits and the document's servers; pushes a message per bad value. */
function readServingSettings(
  read: (name: string) => string | undefined,
  errors: string[],
): ServingSettings | undefined {
  const before = errors.length;
  const ms = (name: keyof typeof SERVING_DEFAULTS, min: number, max: number): number => {
    const result = integer(name, read(name) ?? String(SERVING_DEFAULTS[name]), min, max);
    if (typeof result === 'string') errors.push(result);
    return typeof result === 'number' ? result : 0;
  };
  const headersTimeoutMs = ms('HEADERS_TIMEOUT_MS', 1, 600_000);
  const requestTimeoutMs = ms('REQUEST_TIMEOUT_MS', 1, 3_600_000);
  const keepAliveTimeoutMs = ms('KEEP_ALIVE_TIMEOUT_MS', 1, 600_000);
  const maxConnections = ms('MAX_CONNECTIONS', 1, 1_000_000);
  // Node refuses a request timeout shorter than the headers timeout.
  if (errors.length === before && requestTimeoutMs < headersTimeoutMs) {
    errors.push(
      `REQUEST_TIMEOUT_MS (${requestTimeoutMs}) must not be less than HEADERS_TIMEOUT_MS (${headersTimeoutMs})`,
    );
  }
  const servers: ServerEntry[] = [];
  for (const [name, description] of [
    ['PRODUCTION_BASE_URL', 'Production'],
    ['STAGING_BASE_URL', 'Staging'],
  ] as const) {
    const text = read(name);
    if (text === undefined) continue;
    const result = baseUrl(name, text);
    if (typeof result === 'string') errors.push(result);
    else servers.push({ url: result.url, description });
  }
  if (errors.length > before) return undefined;
  return { headersTimeoutMs, requestTimeoutMs, keepAliveTimeoutMs, maxConnections, servers };
}

// --- end of connection limits and servers ---
