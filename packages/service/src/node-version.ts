// No imports: the bin runs this before it loads anything that an old Node could fail on.

/** The oldest Node the service is built and tested for: node:sqlite, its default storage, without a flag. */
export const MIN_NODE = [22, 13] as const;
/** Older than this, nothing is promised (nor tried). */
const OLDEST_TRIED_MAJOR = 20;

/** How to get a current Node where only npm reaches the outside. */
export const NODE_WITH_NPM =
  'npm install -g --prefix ~/.local node@24 && export PATH="$HOME/.local/bin:$PATH"';

export interface NodeCheck {
  /** True: stop here (exit 1); false: a warning, then on. */
  readonly fatal: boolean;
  readonly lines: readonly string[];
}

type Env = Readonly<Record<string, string | undefined>>;

/** Whether DATABASE_URL asks for SQLite: unset (the default file) or `sqlite:`. */
const wantsSqlite = (env: Env): boolean => {
  const url = env.DATABASE_URL?.trim() ?? '';
  return url === '' || /^sqlite:/i.test(url);
};

/** How the user started it, to repeat in the advice. */
function command(env: Env): string {
  const event = env.npm_lifecycle_event;
  if (event === 'npx') return 'npx petstore-service';
  if (event === undefined || event === '') return 'petstore-service';
  // The runner's own script: npm keeps a user agent it inherited (from a pnpm above it).
  const script = env.npm_execpath?.split(/[\\/]/).pop() ?? '';
  const runner = script.startsWith('pnpm') ? 'pnpm' : 'npm';
  return event === 'start' ? `${runner} start` : `${runner} run ${event}`;
}

/**
 * Whether this Node (`version`: `process.versions.node`) can run the service as `env` configures
 * it: undefined when it can, else what to say, and whether to stop. Below 22.13 `node:sqlite`
 * does not exist, so the default storage cannot open; the other storages still run on Node 20
 * and later (with a warning: it is not what is tested).
 */
export function checkNodeVersion(version: string, env: Env): NodeCheck | undefined {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  const [minMajor, minMinor] = MIN_NODE;
  if (major > minMajor || (major === minMajor && minor >= minMinor)) return undefined;
  const floor = `${minMajor}.${minMinor}`;
  const getNode = `Get Node 24 with npm alone, then run it again in the same shell: ${NODE_WITH_NPM}`;
  if (major >= OLDEST_TRIED_MAJOR && !wantsSqlite(env)) {
    return {
      fatal: false,
      lines: [
        `petstore-service: Node ${version} is older than ${floor}, the oldest it is tested on; running anyway, since DATABASE_URL needs no SQLite.`,
        getNode,
      ],
    };
  }
  const lines = [
    `petstore-service needs Node ${floor} or later: its default storage is SQLite, built into Node (node:sqlite) from ${floor}; this is Node ${version}.`,
    getNode,
  ];
  if (major >= OLDEST_TRIED_MAJOR) {
    lines.push(
      `Or try it on this Node with the pets in memory (gone when it stops): DATABASE_URL=memory: ${command(env)}`,
    );
  }
  return { fatal: true, lines };
}
