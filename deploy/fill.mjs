#!/usr/bin/env node
// Writes this directory's files with your setup's values into another directory:
//
//   node deploy/fill.mjs --out /etc/petstore --instances 10.0.0.11:3000,10.0.0.12:3000 \
//     --postgres 10.0.0.5:5432 --database pets --pgbouncer-listen 0.0.0.0:6432
//
// haproxy.cfg gets one `server` line per instance (its other settings are environment
// variables, read when HAProxy starts); pgbouncer.ini gets the database, server, address and
// auth file. Every value left out keeps what the file holds as written (DEFAULTS), so the
// files here are this command's output with no options. Plain Node 22+, no dependencies.
// deploy/README.md documents it; tools/fleet's tests fill the files they run with it.
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

/** This directory: the files as written. */
export const DEPLOY_DIR = dirname(fileURLToPath(import.meta.url));

/**
 * @typedef {object} DeployValues
 * @property {readonly string[]} instances `host:port` of each instance's API port.
 * @property {string} postgres `host:port` of PostgreSQL, as PgBouncer reaches it.
 * @property {string} database The database's name, the same in PostgreSQL and PgBouncer.
 * @property {string} pgbouncerListen `address:port` PgBouncer listens on.
 * @property {string} authFile PgBouncer's auth file (the users' SCRAM secrets).
 */

/** What the files hold as written. @type {Readonly<DeployValues>} */
export const DEFAULTS = Object.freeze({
  instances: Object.freeze(['127.0.0.1:3001', '127.0.0.1:3002', '127.0.0.1:3003']),
  postgres: '127.0.0.1:5432',
  database: 'pets',
  pgbouncerListen: '127.0.0.1:6432',
  authFile: '/etc/pgbouncer/userlist.txt',
});

/** Copied as they are: haproxy.cfg names them relative to itself. */
export const ERROR_FILES = Object.freeze(['haproxy-429.http', 'haproxy-503.http']);

/**
 * `host:port` (an IPv6 address in brackets) as its two parts, or an error.
 * @param {string} name
 * @param {string} text
 * @returns {{ host: string; port: string }}
 */
function hostPort(name, text) {
  const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([^\s:[\]"'#;]+)):(\d{1,5})$/.exec(text);
  const port = Number(match?.[3]);
  if (match === null || !(port >= 1 && port <= 65_535)) {
    throw new Error(
      `${name}: expected host:port (IPv6 as [address]:port), got ${JSON.stringify(text)}`,
    );
  }
  return { host: match[1] ?? match[2] ?? '', port: String(port) };
}

/**
 * `text` with the one match of `pattern` replaced; none or several is an error, so this command
 * and the files cannot drift apart silently.
 * @param {string} file
 * @param {string} text
 * @param {RegExp} pattern A /gm pattern.
 * @param {string} replacement
 */
function replaceOne(file, text, pattern, replacement) {
  const count = [...text.matchAll(pattern)].length;
  if (count !== 1)
    throw new Error(`${file}: expected one line matching ${pattern}, found ${count}`);
  return text.replace(pattern, () => replacement);
}

/**
 * The files with `values` (the rest as written), by name: haproxy.cfg, its error files and
 * pgbouncer.ini. Throws on a value the files could not hold.
 * @param {Partial<DeployValues>} [values]
 * @returns {{ 'haproxy.cfg': string; 'pgbouncer.ini': string } & Record<string, string>}
 */
export function fillDeploy(values = {}) {
  const { instances, postgres, database, pgbouncerListen, authFile } = { ...DEFAULTS, ...values };
  if (instances.length === 0) throw new Error('instances: at least one');
  if (new Set(instances).size !== instances.length) {
    throw new Error(`instances: ${instances.join(',')} names one twice`);
  }
  const servers = instances.map((address, n) => {
    const { host, port } = hostPort('instances', address);
    return `    server app${n + 1} ${host.includes(':') ? `[${host}]` : host}:${port} check`;
  });
  if (!/^\w+$/.test(database)) {
    throw new Error(`database: letters, digits and _ only, got ${JSON.stringify(database)}`);
  }
  const server = hostPort('postgres', postgres);
  const listen = hostPort('pgbouncer-listen', pgbouncerListen);
  if (authFile === '' || /[\r\n]/.test(authFile)) {
    throw new Error(`auth-file: a path, got ${JSON.stringify(authFile)}`);
  }

  const read = (/** @type {string} */ name) => readFileSync(join(DEPLOY_DIR, name), 'utf8');
  const haproxy = read('haproxy.cfg');
  // The server lines are one block at the end of the backend.
  const block = /^ {4}server .*\n(?: {4}server .*\n)*/gm;
  let pgbouncer = read('pgbouncer.ini');
  for (const [pattern, line] of /** @type {const} */ ([
    [
      /^\w+ = host=.*$/gm,
      `${database} = host=${server.host} port=${server.port} dbname=${database}`,
    ],
    [/^listen_addr = .*$/gm, `listen_addr = ${listen.host}`],
    [/^listen_port = .*$/gm, `listen_port = ${listen.port}`],
    [/^auth_file = .*$/gm, `auth_file = ${authFile}`],
  ])) {
    pgbouncer = replaceOne('pgbouncer.ini', pgbouncer, pattern, line);
  }
  return {
    'haproxy.cfg': replaceOne('haproxy.cfg', haproxy, block, `${servers.join('\n')}\n`),
    ...Object.fromEntries(ERROR_FILES.map((name) => [name, read(name)])),
    'pgbouncer.ini': pgbouncer,
  };
}

/**
 * Writes the filled files into `dir` (created if missing) and returns their paths.
 * @param {string} dir
 * @param {Partial<DeployValues>} [values]
 * @returns {Promise<string[]>}
 */
export async function writeDeploy(dir, values = {}) {
  if (resolve(dir) === DEPLOY_DIR) throw new Error('out: a directory other than deploy/ itself');
  const files = fillDeploy(values);
  await mkdir(dir, { recursive: true });
  const written = [];
  for (const [name, text] of Object.entries(files)) {
    const path = join(dir, name);
    await writeFile(path, text);
    written.push(path);
  }
  return written;
}

const USAGE = `usage: node deploy/fill.mjs --out DIR [options]

Writes haproxy.cfg, its error files and pgbouncer.ini into DIR with these values
(each left out keeps the value the files in deploy/ hold):

  --instances LIST         host:port of each instance's API port, comma-separated
                           (${DEFAULTS.instances.join(',')})
  --postgres HOST:PORT     PostgreSQL, as PgBouncer reaches it (${DEFAULTS.postgres})
  --database NAME          the database, in PostgreSQL and in PgBouncer (${DEFAULTS.database})
  --pgbouncer-listen ADDR:PORT
                           where PgBouncer listens (${DEFAULTS.pgbouncerListen})
  --auth-file PATH         PgBouncer's auth file (${DEFAULTS.authFile})

HAProxy's other settings are environment variables (PETSTORE_LISTEN, ...): deploy/README.md.`;

async function main() {
  const { values } = parseArgs({
    options: {
      out: { type: 'string' },
      instances: { type: 'string' },
      postgres: { type: 'string' },
      database: { type: 'string' },
      'pgbouncer-listen': { type: 'string' },
      'auth-file': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  if (values.out === undefined) throw new Error('--out DIR is required');
  /** @type {Partial<DeployValues>} */
  const chosen = {
    ...(values.instances === undefined
      ? {}
      : { instances: values.instances.split(',').map((entry) => entry.trim()) }),
    ...(values.postgres === undefined ? {} : { postgres: values.postgres }),
    ...(values.database === undefined ? {} : { database: values.database }),
    ...(values['pgbouncer-listen'] === undefined
      ? {}
      : { pgbouncerListen: values['pgbouncer-listen'] }),
    ...(values['auth-file'] === undefined ? {} : { authFile: values['auth-file'] }),
  };
  const written = await writeDeploy(values.out, chosen);
  console.log(`wrote ${written.join(', ')}`);
  console.log(
    `run:  haproxy -f ${join(values.out, 'haproxy.cfg')}   (settings: PETSTORE_* variables)`,
  );
  console.log(
    `      pgbouncer ${join(values.out, 'pgbouncer.ini')}   (auth file: ${chosen.authFile ?? DEFAULTS.authFile})`,
  );
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((/** @type {unknown} */ error) => {
    console.error(`fill.mjs: ${error instanceof Error ? error.message : String(error)}`);
    console.error('node deploy/fill.mjs --help for the options');
    process.exitCode = 2;
  });
}
