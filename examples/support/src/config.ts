import { randomBytes } from 'node:crypto';

export interface AppConfig {
  readonly port: number;
  readonly host: string;
  readonly apiKeys: readonly string[];
  /** True when no API_KEYS were given and the one key was made up at start. */
  readonly keyGenerated: boolean;
  /** Unset: in-memory storage. */
  readonly databaseUrl: string | undefined;
  /** Demo pets to create at start when the storage is empty. */
  readonly seedPets: number;
  /** How long in-flight requests may take to finish after SIGTERM/SIGINT. */
  readonly shutdownTimeoutMs: number;
  /** Lowest pino level written to stdout. */
  readonly logLevel: LogLevel;
  /** Serve the API reference at GET /docs (DOCS=on|off). */
  readonly docs: boolean;
}

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
    ? `LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got ${JSON.stringify(text)}`
    : { level };
};

/** RFC 6750 b64token: anything else could never arrive in `Authorization: Bearer <key>`. */
const BEARER_TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

const generateKey = (): string => randomBytes(24).toString('base64url');

/** A decimal integer in [min, max], or the reason it is not one. */
function integer(name: string, text: string, min: number, max: number): number | string {
  const value = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  return Number.isSafeInteger(value) && value >= min && value <= max
    ? value
    : `${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(text)}`;
}

function apiKeys(text: string): readonly string[] | string {
  const keys = text.split(',').map((key) => key.trim());
  // Keys are secrets: errors name their position, never their text.
  const bad = keys.findIndex((key) => !BEARER_TOKEN.test(key));
  if (bad !== -1) {
    return keys[bad] === ''
      ? `API_KEYS entry ${bad + 1} is empty (keys are separated by commas)`
      : `API_KEYS entry ${bad + 1} has characters a bearer token cannot carry (allowed: A-Z a-z 0-9 - . _ ~ + / and trailing =)`;
  }
  return keys;
}

function databaseUrl(text: string): string {
  let protocol: string | undefined;
  try {
    protocol = new URL(text).protocol;
  } catch {
    // reported below, without echoing a URL that may hold a password
  }
  return protocol === 'postgres:' || protocol === 'postgresql:'
    ? ''
    : 'DATABASE_URL must be a postgres:// or postgresql:// URL';
}

// --- DOCS (issue 14: the API reference page) -------------------------------------------------
/** `DOCS`: `on` (default) serves the API reference at /docs; `off` answers 404 there. */
function docsSwitch(text: string): { readonly docs: boolean } | string {
  const value = text.toLowerCase();
  if (value === 'on' || value === 'off') return { docs: value === 'on' };
  return `DOCS must be on or off, got ${JSON.stringify(text)}`;
}
// --- end DOCS ----------------------------------------------------------------------------------

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
  const url = read('DATABASE_URL');
  const urlProblem = url === undefined ? '' : databaseUrl(url);
  if (urlProblem !== '') errors.push(urlProblem);
  const seedPets = check(integer('SEED_PETS', read('SEED_PETS') ?? '0', 0, MAX_SEED_PETS));
  const shutdownTimeoutMs = check(
    integer('SHUTDOWN_TIMEOUT_MS', read('SHUTDOWN_TIMEOUT_MS') ?? '10000', 0, 600_000),
  );
  const level = check(logLevel(read('LOG_LEVEL') ?? 'info'))?.level;
  const docs = check(docsSwitch(read('DOCS') ?? 'on'))?.docs; // DOCS (issue 14)

  if (
    errors.length > 0 ||
    port === undefined ||
    seedPets === undefined ||
    shutdownTimeoutMs === undefined ||
    level === undefined ||
    docs === undefined
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
      databaseUrl: url,
      seedPets,
      shutdownTimeoutMs,
      logLevel: level,
      docs,
    },
  };
}
