#!/usr/bin/env node
// Writes this directory's files with your setup's values into another directory:
//
//   node deploy/fill.mjs --out /etc/petstore --instances 10.0.0.11:3000,10.0.0.12:3000 \
//     --postgres 10.0.0.5:5432 --database pets --pgbouncer-listen 0.0.0.0:6432
//
// haproxy.cfg gets one `server` line per instance (its other settings are environment
// variables, read when HAProxy starts); pgbouncer.ini gets the database, server, address and
// auth file. With --cluster it writes cluster/'s files instead (a PostgreSQL cluster under
// Patroni: one patroni-N.yml per node, haproxy-postgres.cfg and its state file):
//
//   node deploy/fill.mjs --cluster --out /etc/petstore/cluster \
//     --cluster-nodes 10.0.0.1,10.0.0.2,10.0.0.3 --etcd 10.0.0.1:2379,10.0.0.2:2379,10.0.0.3:2379
//
// Every value left out keeps what the file holds as written (DEFAULTS, CLUSTER_DEFAULTS), so the
// files here are this command's output with no options. Plain Node 22+, no dependencies.
// deploy/README.md documents it; tools/fleet's and tools/cluster's tests fill the files they run
// with it.
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

/** This directory: the files as written. */
export const DEPLOY_DIR = dirname(fileURLToPath(import.meta.url));

/**
 * @typedef {object} DeployValues
 * @property {readonly string[]} instances `host:port` of each instance's API port, or
 *   `host:port@N` for an instance that works on N requests at once instead of the balancer's
 *   PETSTORE_SERVER_MAXCONN (a larger machine).
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
 * An `--instances` entry: `host:port`, or `host:port@N` with the instance's own maxconn.
 * @param {string} entry
 * @returns {{ address: string; maxconn: number | undefined }}
 */
function instance(entry) {
  const at = entry.lastIndexOf('@');
  if (at === -1) return { address: entry, maxconn: undefined };
  const maxconn = /^\d{1,6}$/.test(entry.slice(at + 1)) ? Number(entry.slice(at + 1)) : 0;
  if (maxconn < 1) {
    throw new Error(
      `instances: expected host:port@N with N a whole number of at least 1, got ${JSON.stringify(entry)}`,
    );
  }
  return { address: entry.slice(0, at), maxconn };
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
  const addresses = instances.map((entry) => instance(entry).address);
  if (new Set(addresses).size !== addresses.length) {
    throw new Error(`instances: ${instances.join(',')} names one twice`);
  }
  const servers = instances.map((entry, n) => {
    const { address, maxconn } = instance(entry);
    const { host, port } = hostPort('instances', address);
    const limit = maxconn === undefined ? '' : ` maxconn ${maxconn}`;
    return `    server app${n + 1} ${host.includes(':') ? `[${host}]` : host}:${port} check${limit}`;
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

// --- the PostgreSQL cluster (cluster/) ---

/** cluster/: the cluster's files as written. */
export const CLUSTER_DIR = join(DEPLOY_DIR, 'cluster');

/**
 * @typedef {object} ClusterNode
 * @property {string} host Its address, as the other nodes, HAProxy and the instances reach it.
 * @property {number} postgresPort PostgreSQL's port.
 * @property {number} apiPort Patroni's REST API port (HAProxy's checks, the other nodes).
 */

/**
 * @typedef {object} ClusterValues
 * @property {readonly ClusterNode[]} nodes One per PostgreSQL node, named pg1, pg2, ... in order.
 * @property {readonly string[]} etcd `host:port` of each etcd member's client URL.
 * @property {string} network The network (CIDR) the nodes, HAProxy and the instances connect from.
 * @property {string} dataDir Each node's data directory is `<dataDir>/<name>`.
 * @property {string} binDir PostgreSQL's binaries.
 * @property {string} scope The cluster's name in etcd.
 * @property {string} stateFile Where HAProxy reads its servers' state at start (written here).
 */

/** What cluster/'s files hold as written: three nodes on one machine, for a trial. @type {Readonly<ClusterValues>} */
export const CLUSTER_DEFAULTS = Object.freeze({
  nodes: Object.freeze(
    [0, 1, 2].map((n) =>
      Object.freeze({ host: '127.0.0.1', postgresPort: 5433 + n, apiPort: 8009 + n }),
    ),
  ),
  etcd: Object.freeze(['127.0.0.1:2379']),
  network: '127.0.0.1/32',
  dataDir: '/var/lib/postgresql/15/petstore',
  binDir: '/usr/lib/postgresql/15/bin',
  scope: 'petstore',
  stateFile: '/etc/petstore/cluster/haproxy-postgres.state',
});

/** Node ports when `--cluster-nodes` names a host alone: PostgreSQL's and Patroni's own. */
export const CLUSTER_PORTS = Object.freeze({ postgres: 5432, api: 8008 });

const PORT_RANGE = (/** @type {number} */ port) =>
  Number.isInteger(port) && port >= 1 && port <= 65_535;

/**
 * `host[:postgresPort[:apiPort]]` as a node (IPv6 addresses are not supported here).
 * @param {string} text
 * @returns {ClusterNode}
 */
export function parseClusterNode(text) {
  const match = /^([^\s:[\]"'#;,/]+)(?::(\d{1,5}))?(?::(\d{1,5}))?$/.exec(text);
  const postgresPort = Number(match?.[2] ?? CLUSTER_PORTS.postgres);
  const apiPort = Number(match?.[3] ?? CLUSTER_PORTS.api);
  if (match === null || !PORT_RANGE(postgresPort) || !PORT_RANGE(apiPort)) {
    throw new Error(
      `cluster-nodes: expected host[:postgres port[:Patroni port]], got ${JSON.stringify(text)}`,
    );
  }
  return { host: match[1] ?? '', postgresPort, apiPort };
}

/**
 * `text` with the lines of the top-level YAML section `section` (from `section:` to the next
 * unindented line) passed through `edit`.
 * @param {string} text
 * @param {string} section
 * @param {(body: string) => string} edit
 */
function editSection(text, section, edit) {
  const start = text.search(new RegExp(`^${section}:`, 'm'));
  if (start < 0) throw new Error(`patroni-1.yml: no ${section}: section`);
  const next = text.slice(start).search(/\n\S/);
  const end = next < 0 ? text.length : start + next + 1;
  return text.slice(0, start) + edit(text.slice(start, end)) + text.slice(end);
}

/** A value YAML reads as the string it is (no quoting needed), or an error. */
const yamlPlain = (/** @type {string} */ name, /** @type {string} */ value) => {
  if (!/^[\w./-]+$/.test(value)) {
    throw new Error(`${name}: letters, digits and . / _ - only, got ${JSON.stringify(value)}`);
  }
  return value;
};

/**
 * The servers' state HAProxy loads at start (`server-state-file`): every server DOWN, its
 * health 0, so each needs `rise` passing checks before it gets a connection. The format is
 * `show servers state`'s (version 1); HAProxy matches the lines by backend and server name.
 * @param {readonly ClusterNode[]} nodes
 */
function serverState(nodes) {
  const lines = [
    '1',
    '# be_id be_name srv_id srv_name srv_addr srv_op_state srv_admin_state srv_uweight srv_iweight srv_time_since_last_change srv_check_status srv_check_result srv_check_health srv_check_state srv_agent_state bk_f_forced_id srv_f_forced_id srv_fqdn srv_port srvrecord srv_use_ssl srv_check_port srv_check_addr srv_agent_addr srv_agent_port',
  ];
  for (const [b, backend] of ['postgres_primary', 'postgres_replicas'].entries()) {
    for (const [n, node] of nodes.entries()) {
      lines.push(
        `${b + 1} ${backend} ${n + 1} pg${n + 1} ${node.host} 0 0 1 1 0 1 0 0 6 0 0 0 - ${node.postgresPort} - 0 ${node.apiPort} - - 0`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}

/**
 * cluster/'s files with `values` (the rest as written), by name: patroni-1.yml ... patroni-N.yml
 * (one per node), haproxy-postgres.cfg and haproxy-postgres.state. Throws on a value the files
 * could not hold.
 * @param {Partial<ClusterValues>} [values]
 * @returns {Record<string, string>}
 */
export function fillCluster(values = {}) {
  const { nodes, etcd, network, dataDir, binDir, scope, stateFile } = {
    ...CLUSTER_DEFAULTS,
    ...values,
  };
  if (nodes.length < 2) throw new Error('cluster-nodes: at least two (three for synchronous mode)');
  const addresses = nodes.map((node) => `${node.host}:${node.postgresPort}`);
  const apis = nodes.map((node) => `${node.host}:${node.apiPort}`);
  if (new Set([...addresses, ...apis]).size !== addresses.length * 2) {
    throw new Error(`cluster-nodes: an address:port is named twice in ${addresses.join(',')}`);
  }
  for (const node of nodes) yamlPlain('cluster-nodes', node.host);
  if (etcd.length === 0) throw new Error('etcd: at least one');
  for (const member of etcd) hostPort('etcd', member);
  if (!/^[0-9A-Fa-f:.]+\/\d{1,3}$/.test(network)) {
    throw new Error(`cluster-network: a CIDR (10.0.0.0/24), got ${JSON.stringify(network)}`);
  }
  for (const [name, path] of /** @type {const} */ ([
    ['cluster-data-dir', dataDir],
    ['postgres-bin', binDir],
  ])) {
    if (!yamlPlain(name, path).startsWith('/')) throw new Error(`${name}: an absolute path`);
  }
  yamlPlain('cluster-scope', scope);
  if (stateFile === '' || /[\s"'#\\]/.test(stateFile)) {
    throw new Error(
      `state file: a path without spaces or quotes, got ${JSON.stringify(stateFile)}`,
    );
  }

  const read = (/** @type {string} */ name) => readFileSync(join(CLUSTER_DIR, name), 'utf8');
  const template = read('patroni-1.yml');
  /** @type {Record<string, string>} */
  const files = {};
  for (const [n, node] of nodes.entries()) {
    const name = `pg${n + 1}`;
    let text = template;
    text = replaceOne('patroni-1.yml', text, /^scope: .*$/gm, `scope: ${scope}`);
    text = replaceOne('patroni-1.yml', text, /^name: .*$/gm, `name: ${name}`);
    text = replaceOne(
      'patroni-1.yml',
      text,
      /^# Patroni 3\.0 \(Debian 12's package\) for node \S+ of \w+:/gm,
      `# Patroni 3.0 (Debian 12's package) for node ${name} of ${['one', 'two', 'three', 'four', 'five', 'six', 'seven'][nodes.length - 1] ?? nodes.length}:`,
    );
    const listenAt = (/** @type {string} */ address) => (/** @type {string} */ body) =>
      replaceOne(
        'patroni-1.yml',
        replaceOne('patroni-1.yml', body, /^ {2}listen: .*$/gm, `  listen: ${address}`),
        /^ {2}connect_address: .*$/gm,
        `  connect_address: ${address}`,
      );
    text = editSection(text, 'restapi', listenAt(`${node.host}:${node.apiPort}`));
    text = editSection(text, 'etcd', (body) =>
      replaceOne('patroni-1.yml', body, /^ {2}hosts: .*$/gm, `  hosts: ${etcd.join(',')}`),
    );
    text = editSection(text, 'postgresql', (body) => {
      let section = listenAt(`${node.host}:${node.postgresPort}`)(body);
      for (const [pattern, line] of /** @type {const} */ ([
        [/^ {2}data_dir: .*$/gm, `  data_dir: ${dataDir}/${name}`],
        [/^ {2}bin_dir: .*$/gm, `  bin_dir: ${binDir}`],
        [/^ {2}pgpass: .*$/gm, `  pgpass: ${dataDir}/${name}.pgpass`],
        [
          /^ {4}- host replication replicator .*$/gm,
          `    - host replication replicator ${network} scram-sha-256`,
        ],
        [/^ {4}- host all all .*$/gm, `    - host all all ${network} scram-sha-256`],
      ])) {
        section = replaceOne('patroni-1.yml', section, pattern, line);
      }
      return section;
    });
    files[`patroni-${n + 1}.yml`] = text;
  }

  let haproxy = read('haproxy-postgres.cfg');
  // One block of server lines at the end of each of the two listen sections.
  const block = /^ {4}server .*\n(?: {4}server .*\n)*/gm;
  const count = [...haproxy.matchAll(block)].length;
  if (count !== 2) {
    throw new Error(`haproxy-postgres.cfg: expected two blocks of server lines, found ${count}`);
  }
  const servers = nodes
    .map(
      (node, n) =>
        `    server pg${n + 1} ${node.host}:${node.postgresPort} check port ${node.apiPort}\n`,
    )
    .join('');
  haproxy = haproxy.replace(block, () => servers);
  haproxy = replaceOne(
    'haproxy-postgres.cfg',
    haproxy,
    /^ {4}server-state-file .*$/gm,
    `    server-state-file ${stateFile}`,
  );
  files['haproxy-postgres.cfg'] = haproxy;
  files['haproxy-postgres.state'] = serverState(nodes);
  return files;
}

/**
 * Writes the filled cluster files into `dir` (created if missing) and returns their paths. The
 * state file HAProxy reads is the one written here, unless `values.stateFile` names another.
 * @param {string} dir
 * @param {Partial<ClusterValues>} [values]
 * @returns {Promise<string[]>}
 */
export async function writeCluster(dir, values = {}) {
  if (resolve(dir) === CLUSTER_DIR || resolve(dir) === DEPLOY_DIR) {
    throw new Error('out: a directory other than deploy/ and deploy/cluster/');
  }
  const files = fillCluster({
    stateFile: join(resolve(dir), 'haproxy-postgres.state'),
    ...values,
  });
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
       node deploy/fill.mjs --cluster --out DIR [cluster options]

Writes haproxy.cfg, its error files and pgbouncer.ini into DIR with these values
(each left out keeps the value the files in deploy/ hold):

  --instances LIST         host:port of each instance's API port, comma-separated
                           (${DEFAULTS.instances.join(',')}); host:port@N for an
                           instance that takes N requests at once instead of
                           PETSTORE_SERVER_MAXCONN (a larger machine)
  --postgres HOST:PORT     PostgreSQL, as PgBouncer reaches it (${DEFAULTS.postgres};
                           with a cluster: its HAProxy's leader port)
  --database NAME          the database, in PostgreSQL and in PgBouncer (${DEFAULTS.database})
  --pgbouncer-listen ADDR:PORT
                           where PgBouncer listens (${DEFAULTS.pgbouncerListen})
  --auth-file PATH         PgBouncer's auth file (${DEFAULTS.authFile})

With --cluster, writes deploy/cluster/'s files instead: patroni-1.yml ... patroni-N.yml (one
per node), haproxy-postgres.cfg and haproxy-postgres.state (which that config reads from DIR):

  --cluster-nodes LIST     each node's host[:PostgreSQL port[:Patroni REST port]], comma-
                           separated (ports default to ${CLUSTER_PORTS.postgres} and ${CLUSTER_PORTS.api}; as written:
                           ${CLUSTER_DEFAULTS.nodes.map((node) => `${node.host}:${node.postgresPort}:${node.apiPort}`).join(',')})
  --etcd LIST              host:port of each etcd member's client URL (${CLUSTER_DEFAULTS.etcd.join(',')})
  --cluster-network CIDR   where the nodes, HAProxy and the instances connect from, for
                           pg_hba (${CLUSTER_DEFAULTS.network})
  --cluster-data-dir DIR   each node's data directory is DIR/pgN (${CLUSTER_DEFAULTS.dataDir})
  --postgres-bin DIR       PostgreSQL's binaries (${CLUSTER_DEFAULTS.binDir})
  --cluster-scope NAME     the cluster's name in etcd (${CLUSTER_DEFAULTS.scope})

HAProxy's other settings are environment variables (PETSTORE_LISTEN, PETSTORE_PG_LISTEN, ...):
deploy/README.md. Passwords go in Patroni's environment, never in these files.`;

const CLUSTER_OPTIONS = /** @type {const} */ ([
  'cluster-nodes',
  'etcd',
  'cluster-network',
  'cluster-data-dir',
  'postgres-bin',
  'cluster-scope',
]);
const DEPLOY_OPTIONS = /** @type {const} */ ([
  'instances',
  'postgres',
  'database',
  'pgbouncer-listen',
  'auth-file',
]);

/** A comma-separated list, trimmed. */
const list = (/** @type {string} */ text) => text.split(',').map((entry) => entry.trim());

async function main() {
  const { values } = parseArgs({
    options: {
      out: { type: 'string' },
      cluster: { type: 'boolean' },
      instances: { type: 'string' },
      postgres: { type: 'string' },
      database: { type: 'string' },
      'pgbouncer-listen': { type: 'string' },
      'auth-file': { type: 'string' },
      'cluster-nodes': { type: 'string' },
      etcd: { type: 'string' },
      'cluster-network': { type: 'string' },
      'cluster-data-dir': { type: 'string' },
      'postgres-bin': { type: 'string' },
      'cluster-scope': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  if (values.out === undefined) throw new Error('--out DIR is required');
  const given = (/** @type {readonly string[]} */ names) =>
    names.filter((name) => /** @type {Record<string, unknown>} */ (values)[name] !== undefined);
  if (values.cluster === true) {
    const misplaced = given(DEPLOY_OPTIONS);
    if (misplaced.length > 0) throw new Error(`--${misplaced[0]} is not a --cluster option`);
    /** @type {Partial<ClusterValues>} */
    const chosen = {
      ...(values['cluster-nodes'] === undefined
        ? {}
        : { nodes: list(values['cluster-nodes']).map(parseClusterNode) }),
      ...(values.etcd === undefined ? {} : { etcd: list(values.etcd) }),
      ...(values['cluster-network'] === undefined ? {} : { network: values['cluster-network'] }),
      ...(values['cluster-data-dir'] === undefined ? {} : { dataDir: values['cluster-data-dir'] }),
      ...(values['postgres-bin'] === undefined ? {} : { binDir: values['postgres-bin'] }),
      ...(values['cluster-scope'] === undefined ? {} : { scope: values['cluster-scope'] }),
    };
    const written = await writeCluster(values.out, chosen);
    console.log(`wrote ${written.join(', ')}`);
    console.log(
      `run:  patroni ${join(values.out, 'patroni-1.yml')}   (on node 1; PATRONI_*_PASSWORD in its environment)`,
    );
    console.log(
      `      haproxy -f ${join(values.out, 'haproxy-postgres.cfg')}   (settings: PETSTORE_PG_* variables)`,
    );
    return;
  }
  const misplaced = given(CLUSTER_OPTIONS);
  if (misplaced.length > 0) throw new Error(`--${misplaced[0]} needs --cluster`);
  /** @type {Partial<DeployValues>} */
  const chosen = {
    ...(values.instances === undefined ? {} : { instances: list(values.instances) }),
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
