import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';

const ROOT = fileURLToPath(new URL('.', import.meta.url));
// Provides `postgresUrl` (DATABASE_URL, or one throwaway embedded PostgreSQL shared by every project).
const POSTGRES_SETUP = join(ROOT, 'tools/test-postgres/src/global-setup.ts');
/** Packages that use these need a PostgreSQL in their tests. */
const POSTGRES_PACKAGES = new Set(['@petstore/storage-postgres', '@petstore/test-postgres']);

interface Manifest {
  readonly name: string;
  readonly dependencies?: Record<string, string>;
  readonly devDependencies?: Record<string, string>;
}

/** Every workspace package with a package.json: new packages and examples join by existing. */
function workspacePackages(): Map<string, { dir: string; manifest: Manifest }> {
  const dirs = ['packages', 'tools', 'examples'].flatMap((parent) =>
    readdirSync(join(ROOT, parent), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => join(parent, entry.name)),
  );
  const found = new Map<string, { dir: string; manifest: Manifest }>();
  for (const dir of [...dirs, 'bench', 'docs']) {
    const file = join(ROOT, dir, 'package.json');
    if (!existsSync(file)) continue;
    const manifest = JSON.parse(readFileSync(file, 'utf8')) as Manifest;
    found.set(manifest.name, { dir, manifest });
  }
  return found;
}

/** A package needs PostgreSQL when it is, or depends within the workspace on, the PostgreSQL storage or its test support. */
function needsPostgres(
  name: string,
  packages: ReturnType<typeof workspacePackages>,
  seen = new Set<string>(),
): boolean {
  if (POSTGRES_PACKAGES.has(name)) return true;
  const manifest = packages.get(name)?.manifest;
  if (manifest === undefined || seen.has(name)) return false;
  seen.add(name);
  const deps = Object.keys({ ...manifest.dependencies, ...manifest.devDependencies });
  return deps.some((dep) => packages.has(dep) && needsPostgres(dep, packages, seen));
}

/**
 * Run only when asked (PETSTORE_CLUSTER=1): the Patroni cluster's failover times are its
 * assertions, so it runs on a quiet machine, after the rest (.ci/run does).
 */
const ON_REQUEST: Readonly<Record<string, string>> = { '@petstore/cluster': 'PETSTORE_CLUSTER' };
/** The same for single files of a project whose other tests always run. */
const FILES_ON_REQUEST: Readonly<Record<string, { flag: string; files: readonly string[] }>> = {
  // The partition schedule's short pass; the checker's own tests always run.
  '@petstore/partition': { flag: 'PETSTORE_CLUSTER', files: ['test/partition.test.ts'] },
};

const packages = workspacePackages();
const projects: TestProjectInlineConfiguration[] = [...packages]
  .filter(([name]) => {
    const flag = ON_REQUEST[name];
    return flag === undefined || process.env[flag] === '1';
  })
  .map(([name, { dir }]) => ({
    extends: true,
    test: {
      name,
      root: join(ROOT, dir),
      include: ['{src,test}/**/*.test.ts'],
      exclude: [
        ...configDefaults.exclude,
        ...(process.env[FILES_ON_REQUEST[name]?.flag ?? ''] === '1'
          ? []
          : (FILES_ON_REQUEST[name]?.files ?? [])),
      ],
      globalSetup: needsPostgres(name, packages) ? [POSTGRES_SETUP] : [],
    },
  }));

// Workspace packages resolve to their TypeScript sources (the `@petstore/source`
// export condition), so tests never need a build first. One project per package:
// `vitest run --project @petstore/core` (or `pnpm test` in its folder) starts no PostgreSQL.
export default defineConfig({
  root: ROOT,
  resolve: { conditions: ['@petstore/source'] },
  ssr: { resolve: { conditions: ['@petstore/source'] } },
  test: {
    projects,
    testTimeout: 20_000,
    hookTimeout: 120_000,
    // CI also keeps a machine-readable summary, for its closing "N passed, N failed" line.
    reporters: process.env.CI ? ['default', 'json'] : ['default'],
    outputFile: { json: join(ROOT, '.tmp/vitest-results.json') },
  },
});
