import { defineConfig } from 'vitest/config';

// Workspace packages resolve to their TypeScript sources (the `@petstore/source`
// export condition), so tests never need a build first.
export default defineConfig({
  resolve: { conditions: ['@petstore/source'] },
  ssr: { resolve: { conditions: ['@petstore/source'] } },
  test: {
    include: [
      'packages/*/{src,test}/**/*.test.ts',
      'examples/*/{src,test}/**/*.test.ts',
      'bench/test/**/*.test.ts',
    ],
    testTimeout: 20_000,
    hookTimeout: 120_000,
    // Provides `postgresUrl` (DATABASE_URL, or a throwaway embedded PostgreSQL) to tests.
    globalSetup: ['packages/storage-postgres/test/global-setup.ts'],
    // CI also keeps a machine-readable summary, for its closing "N passed, N failed" line.
    reporters: process.env.CI ? ['default', 'json'] : ['default'],
    outputFile: { json: '.tmp/vitest-results.json' },
  },
});
