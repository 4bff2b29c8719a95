import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

export type Runtime = 'bun' | 'deno' | 'workerd';

const HARNESS = fileURLToPath(new URL('./harness/', import.meta.url));
const OUT = fileURLToPath(new URL('../../../.tmp/runtimes/', import.meta.url));

const ENTRIES: Record<Runtime, string> = { bun: 'bun.ts', deno: 'deno.ts', workerd: 'worker.ts' };

/**
 * The harness for `runtime` as one ES module, from the workspace's TypeScript sources (the
 * `@petstore/source` condition): what each runtime runs, with nothing to resolve at run time
 * but the platform's own modules (`node:*`; and `pg`'s, bundled, for Bun and Deno).
 */
export async function bundleHarness(runtime: Runtime): Promise<string> {
  mkdirSync(OUT, { recursive: true });
  const outfile = `${OUT}harness-${runtime}.mjs`;
  await build({
    entryPoints: [`${HARNESS}${ENTRIES[runtime]}`],
    outfile,
    bundle: true,
    format: 'esm',
    target: 'es2022',
    platform: runtime === 'workerd' ? 'neutral' : 'node',
    mainFields: ['module', 'main'],
    conditions: ['@petstore/source', 'workerd', 'worker'],
    alias: { vitest: `${HARNESS}vitest-stub.ts` },
    external: ['node:*', 'pg-native', 'cloudflare:*'],
    // pg is CommonJS and requires Node's modules by bare name; a banner gives it `require`.
    banner:
      runtime === 'workerd'
        ? {}
        : {
            js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
          },
    logLevel: 'error',
  });
  return outfile;
}
