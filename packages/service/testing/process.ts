import { type ChildProcess, spawn } from 'node:child_process';
import { request } from 'node:http';

/** Every variable the apps read: cleared from the inherited environment so tests set their own. */
export const APP_ENV_NAMES = [
  'PORT',
  'HOST',
  'API_KEYS',
  'DATABASE_URL',
  'DATABASE_READ_URL',
  'SEED_PETS',
  'SHUTDOWN_TIMEOUT_MS',
  'LOG_LEVEL',
  'METRICS',
  'HEADERS_TIMEOUT_MS',
  'REQUEST_TIMEOUT_MS',
  'KEEP_ALIVE_TIMEOUT_MS',
  'MAX_CONNECTIONS',
  'PRODUCTION_BASE_URL',
  'STAGING_BASE_URL',
  'DOCS',
  'MANAGEMENT_PORT',
  'MANAGEMENT_HOST',
  'METRICS_ON_API_PORT',
  'MAX_CONNECTIONS_PER_ADDRESS',
  'IPV6_PREFIX_LENGTH',
  'TRUSTED_PROXIES',
  'FIRST_BYTE_TIMEOUT_MS',
  'SHUTDOWN_DELAY_MS',
  'PG_POOL_MAX',
  'READY_REQUIRES_STORAGE',
  'IDEMPOTENCY_SCOPE_SECRET',
  'IDEMPOTENCY_PREVIOUS_SCOPE_SECRETS',
  'LOAD_SHEDDING_MAX_EVENT_LOOP_DELAY_MS',
  'LOAD_SHEDDING_MAX_HEAP_USED_BYTES',
  'LOAD_SHEDDING_MAX_IN_FLIGHT',
  'LOAD_SHEDDING_RETRY_AFTER_SECONDS',
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
  'OTEL_EXPORTER_OTLP_PROTOCOL',
  'OTEL_SERVICE_NAME',
  'OTEL_SDK_DISABLED',
  'OTEL_TRACES_EXPORTER',
] as const;

const WAIT_MS = 15_000;

/** One parsed pino line. */
export type LogLine = Readonly<Record<string, unknown>>;

export interface StartedApp {
  readonly child: ChildProcess;
  /** stdout and stderr so far, interleaved as they arrived. */
  output(): string;
  /** The JSON lines of the output (the log), parsed. */
  logLines(): LogLine[];
  readonly exited: Promise<number | null>;
  /** Resolves with the first group (or the match) once the output shows `pattern`; 15 s at most. */
  waitFor(pattern: RegExp): Promise<string>;
  /** Resolves with the first log line that `matches`; 15 s at most. */
  waitForLog(matches: (line: LogLine) => boolean): Promise<LogLine>;
  signal(name: NodeJS.Signals): void;
}

export interface ListeningApp extends StartedApp {
  /** `http://127.0.0.1:<port>/v1`, from the banner. */
  readonly url: string;
  readonly origin: string;
  /** The generated key from the banner, or its placeholder when API_KEYS was set. */
  readonly key: string;
  /** `http://127.0.0.1:<port>` of the management listener, from the banner; undefined when off. */
  readonly management: string | undefined;
}

const spawned: ChildProcess[] = [];
/** Children started as the leaders of their own process group. */
const groupLeaders = new WeakSet<ChildProcess>();

const parseLine = (line: string): LogLine | undefined => {
  if (!line.startsWith('{')) return undefined;
  try {
    return JSON.parse(line) as LogLine;
  } catch {
    return undefined;
  }
};

export interface StartOptions {
  /** What to run instead of `node --import tsx ... src/main.ts` (`['pnpm', 'start']`). */
  readonly command?: readonly string[];
  /** In a process group of its own (led by the child), as a terminal or a supervisor starts it. */
  readonly processGroup?: boolean;
}

/**
 * Runs an app's `src/main.ts` as a real process, as `pnpm start` does (tsx, source
 * condition), on 127.0.0.1 and a port the system picks.
 */
export function startApp(
  appDir: string,
  env: Readonly<Record<string, string>>,
  how: StartOptions = {},
): StartedApp {
  const base = { ...process.env };
  for (const name of APP_ENV_NAMES) delete base[name];
  const [command, ...args] = how.command ?? [
    process.execPath,
    '--import',
    'tsx',
    '--conditions=@petstore/source',
    'src/main.ts',
  ];
  const child = spawn(command ?? process.execPath, args, {
    cwd: appDir,
    // In memory unless the test names a storage: the default SQLite file would outlive the test
    // (a test of the default gives DATABASE_URL '' and an XDG_DATA_HOME of its own).
    env: {
      ...base,
      PORT: '0',
      HOST: '127.0.0.1',
      MANAGEMENT_PORT: '0',
      DATABASE_URL: 'memory:',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: how.processGroup === true,
  });
  spawned.push(child);
  if (how.processGroup === true) groupLeaders.add(child);
  let text = '';
  const waiters = new Set<() => void>();
  const onData = (chunk: Buffer): void => {
    text += chunk.toString('utf8');
    for (const wake of [...waiters]) wake();
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      for (const wake of [...waiters]) wake();
      resolve(code);
    }),
  );
  // A group's wrapper (pnpm) may exit before the app it started: output ends only when every
  // process holding the pipes is gone.
  let outputEnded = false;
  child.once('close', () => {
    outputEnded = true;
    for (const wake of [...waiters]) wake();
  });
  const done = (): boolean =>
    how.processGroup === true ? outputEnded : child.exitCode !== null || child.signalCode !== null;
  const logLines = (): LogLine[] =>
    text.split('\n').flatMap((line) => {
      const parsed = parseLine(line);
      return parsed === undefined ? [] : [parsed];
    });

  /** Polls `find` on every new output until it gives a value, the output ends, or time runs out. */
  const waitUntil = <T>(find: () => T | undefined, what: string): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`no ${what} within ${WAIT_MS} ms in:\n${text}`));
      }, WAIT_MS);
      const check = (): void => {
        const found = find();
        if (found !== undefined) {
          waiters.delete(check);
          clearTimeout(timer);
          resolve(found);
        } else if (done()) {
          waiters.delete(check);
          clearTimeout(timer);
          reject(
            new Error(`exited (${child.exitCode ?? child.signalCode}) before ${what}:\n${text}`),
          );
        }
      };
      waiters.add(check);
      check();
    });

  return {
    child,
    output: () => text,
    logLines,
    exited,
    waitFor: (pattern) =>
      waitUntil(() => {
        const match = pattern.exec(text);
        return match === null ? undefined : (match[1] ?? match[0]);
      }, String(pattern)),
    waitForLog: (matches) => waitUntil(() => logLines().find(matches), 'matching log line'),
    signal: (name) => {
      if (child.pid !== undefined) process.kill(child.pid, name);
    },
  };
}

/** Starts the app and waits for the banner's URL and key. */
export async function startListening(
  appDir: string,
  env: Readonly<Record<string, string>>,
  how: StartOptions = {},
): Promise<ListeningApp> {
  const started = startApp(appDir, env, how);
  const url = await started.waitFor(/listening on (http:\/\/\S+\/v1)/);
  const key = await started.waitFor(/Bearer ([^"]+)" /);
  const management = await started.waitFor(/management: (off|http:\/\/\S+)/);
  return {
    ...started,
    url,
    origin: new URL(url).origin,
    key,
    management: management === 'off' ? undefined : management,
  };
}

/** SIGKILLs the apps this module started that still run: by their own PID (or group), nothing else. */
export function killStartedApps(): void {
  for (const child of spawned.splice(0)) {
    if (child.pid === undefined) continue;
    if (groupLeaders.has(child)) {
      // The group this module created: what the wrapper left behind goes too.
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    } else if (child.exitCode === null && child.signalCode === null) {
      process.kill(child.pid, 'SIGKILL');
    }
  }
}

export interface HalfSentRequest {
  /** Sends the rest of the body and ends the request. */
  finish(rest: string): void;
  /** The answer, once it is complete. */
  readonly answer: Promise<{ readonly status: number | undefined; readonly body: string }>;
  /** The error code (ECONNRESET...) if the connection is cut instead. */
  readonly failed: Promise<string>;
}

/** A JSON POST whose body is sent only in part, to have a request in flight on demand. */
export function halfSentPost(
  url: string,
  headers: Readonly<Record<string, string>>,
  firstPart: string,
): HalfSentRequest {
  const req = request(url, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json', connection: 'keep-alive' },
    agent: false,
  });
  const answer = new Promise<{ status: number | undefined; body: string }>((resolve) => {
    req.on('response', (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => {
        body += chunk.toString('utf8');
      });
      res.on('end', () => resolve({ status: res.statusCode, body }));
    });
  });
  const failed = new Promise<string>((resolve) =>
    req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message)),
  );
  req.write(firstPart);
  return { finish: (rest) => req.end(rest), answer, failed };
}
