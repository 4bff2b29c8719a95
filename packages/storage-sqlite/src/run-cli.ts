import { parseArgs } from 'node:util';
import { backup } from './backup.js';
import { migrate } from './migrate.js';
import { DEFAULT_BUSY_TIMEOUT_MS } from './options.js';

const USAGE = `Usage: petstore-sqlite <command> [--busy-timeout-ms n]

Commands:
  backup <db> <destination>   copies <db> online, while it serves, to <destination>: a
                              consistent snapshot, checked (PRAGMA quick_check), then moved into
                              place (an existing destination is replaced whole)
  migrate <db>                applies the pending @petstore/storage-sqlite migrations to <db>
                              (created when missing); safe to run again

--busy-timeout-ms n waits at most n milliseconds for a lock another connection holds (default
${DEFAULT_BUSY_TIMEOUT_MS}). Exit status: 0 done, 1 failed, 2 usage error.`;

/** A whole number of milliseconds, written as plain digits. */
function parseMillis(text: string | undefined): number | undefined | Error {
  if (text === undefined) return undefined;
  const millis = Number(text);
  return /^[0-9]+$/.test(text) && Number.isSafeInteger(millis)
    ? millis
    : new Error(`--busy-timeout-ms must be a whole number of milliseconds, got "${text}"`);
}

type Parsed =
  | { readonly kind: 'help' }
  | { readonly kind: 'usage'; readonly problem: string }
  | {
      readonly kind: 'backup' | 'migrate';
      readonly args: readonly string[];
      readonly busyTimeoutMs: number;
    };

function parse(argv: readonly string[]): Parsed {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true });
  } catch (error) {
    return { kind: 'usage', problem: error instanceof Error ? error.message : String(error) };
  }
  if (parsed.values.help === true) return { kind: 'help' };
  const busyTimeoutMs = parseMillis(parsed.values['busy-timeout-ms']);
  if (busyTimeoutMs instanceof Error) return { kind: 'usage', problem: busyTimeoutMs.message };
  const [command, ...args] = parsed.positionals;
  const arity = command === 'backup' ? 2 : command === 'migrate' ? 1 : undefined;
  if (command === undefined) return { kind: 'usage', problem: 'no command given' };
  if ((command !== 'backup' && command !== 'migrate') || arity === undefined) {
    return { kind: 'usage', problem: `unknown command "${command}"` };
  }
  if (args.length !== arity) {
    return {
      kind: 'usage',
      problem: `${command} takes ${arity === 1 ? 'one path' : 'two paths'}, got ${args.length}`,
    };
  }
  return { kind: command, args, busyTimeoutMs: busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS };
}

const OPTIONS = {
  'busy-timeout-ms': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** The CLI as a function, so it can be tested in-process: resolves with the exit code. */
export async function runCli(
  argv: readonly string[],
  out: (line: string) => void = console.log,
  err: (line: string) => void = console.error,
): Promise<number> {
  const parsed = parse(argv);
  if (parsed.kind === 'help') {
    out(USAGE);
    return 0;
  }
  if (parsed.kind === 'usage') {
    err(`${parsed.problem}\n\n${USAGE}`);
    return 2;
  }
  const [path = '', destination = ''] = parsed.args;
  try {
    if (parsed.kind === 'migrate') {
      const result = migrate({ path, busyTimeoutMs: parsed.busyTimeoutMs });
      out(
        result.applied.length === 0
          ? `${path} is up to date (version ${result.version})`
          : `${path}: applied ${result.applied.join(', ')} (now version ${result.version})`,
      );
    } else {
      const result = await backup(path, destination, { busyTimeoutMs: parsed.busyTimeoutMs });
      out(`backed up ${path} to ${result.destination} (${result.bytes} bytes, ${result.method})`);
    }
    return 0;
  } catch (error) {
    err(`${parsed.kind} failed: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}
