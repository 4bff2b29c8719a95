#!/usr/bin/env node
// `pnpm pack:all`: builds every package, then packs each published one (pnpm pack, so
// `publishConfig` applies) into .tmp/tarballs/, one line per tarball. The build's own output,
// hundreds of lines, is shown only when it fails. Options (for tests): `--no-build` (packs what
// is built), `--out DIR` (another folder).
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const outAt = args.indexOf('--out');
const destination = outAt === -1 ? join(root, '.tmp', 'tarballs') : resolve(args[outAt + 1] ?? '');

/** pnpm as it ran this script (`npm_execpath`), else through npx, as the README runs it. */
const execPath = process.env.npm_execpath ?? '';
const pnpm = (args, cwd) =>
  /pnpm[^/\\]*$/.test(execPath)
    ? spawnSync(process.execPath, [execPath, ...args], { cwd, encoding: 'utf8', maxBuffer: 1e8 })
    : spawnSync('npx', ['-y', 'pnpm@10.34.9', ...args], { cwd, encoding: 'utf8', maxBuffer: 1e8 });

const failed = (what, result) => {
  process.stderr.write(`${result.stdout ?? ''}${result.stderr ?? ''}${result.error ?? ''}\n`);
  console.error(`pack:all: ${what} failed (exit ${result.status})`);
  process.exit(result.status || 1);
};

if (!args.includes('--no-build')) {
  const built = pnpm(['build'], root);
  if (built.status !== 0) failed('pnpm build', built);
}

const packages = readdirSync(join(root, 'packages'))
  .map((name) => join(root, 'packages', name))
  .filter((dir) => {
    try {
      return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).private !== true;
    } catch {
      return false;
    }
  });
for (const dir of packages) {
  const packed = pnpm(['pack', '--pack-destination', destination, '--json'], dir);
  if (packed.status !== 0) failed(`pnpm pack in ${relative(root, dir)}`, packed);
  const { filename } = JSON.parse(packed.stdout);
  const kilobytes = Math.ceil(statSync(filename).size / 1024);
  console.log(`${relative(process.cwd(), filename)} (${kilobytes} kB)`);
}
