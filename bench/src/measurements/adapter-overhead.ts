import type { BenchChild } from '../child.js';
import { type BenchConfig, FRAMEWORKS } from '../config.js';
import { AUTHORIZATION, CREATE_BODY, CREATE_PATH, LIST_PATH } from '../fixtures.js';
import { checked, type RunBounds, runInterleaved } from '../interleave.js';
import type { LoadSpec } from '../load.js';
import type { Progress } from '../progress.js';
import type { AdapterOverhead, Framework } from '../results.js';
import { compared, control } from '../run-figures.js';
import type { PlainServerKind } from '../servers/spec.js';
import { startServer } from '../servers/start.js';
import { expectStatus, probe } from './http-probe.js';

type Operation = 'list' | 'create';

export type { RunBounds };

export const base = (child: BenchChild): string => `http://127.0.0.1:${child.port}`;

export function requestSpec(child: BenchChild, operation: Operation, bounds: RunBounds): LoadSpec {
  const { connections, seconds, maxRequests } = bounds;
  return operation === 'list'
    ? {
        url: base(child) + LIST_PATH,
        method: 'GET',
        headers: { authorization: AUTHORIZATION },
        connections,
        seconds,
        maxRequests,
      }
    : {
        url: base(child) + CREATE_PATH,
        method: 'POST',
        headers: { authorization: AUTHORIZATION, 'content-type': 'application/json' },
        body: CREATE_BODY,
        connections,
        seconds,
        maxRequests,
      };
}

/** Both sides must give the same answer, or the comparison means nothing. */
export async function checkSameWork(
  bare: BenchChild,
  ours: BenchChild,
  framework: string,
): Promise<void> {
  const list = await Promise.all(
    [bare, ours].map((child) =>
      probe(base(child) + LIST_PATH, { headers: { authorization: AUTHORIZATION } }),
    ),
  );
  const [bareList, oursList] = list as [
    Awaited<ReturnType<typeof probe>>,
    Awaited<ReturnType<typeof probe>>,
  ];
  expectStatus(`${framework} bare list`, bareList, 200);
  expectStatus(`${framework} ours list`, oursList, 200);
  if (
    bareList.body !== oursList.body ||
    bareList.headers.get('link') !== oursList.headers.get('link')
  ) {
    throw new Error(
      `${framework}: bare and ours list different pages:\n${bareList.body.slice(0, 200)}\n${oursList.body.slice(0, 200)}`,
    );
  }
  for (const [side, child] of [
    ['bare', bare],
    ['ours', ours],
  ] as const) {
    const created = await probe(base(child) + CREATE_PATH, {
      method: 'POST',
      headers: { authorization: AUTHORIZATION, 'content-type': 'application/json' },
      body: CREATE_BODY,
    });
    expectStatus(`${framework} ${side} create`, created, 201);
    const { id, ...rest } = JSON.parse(created.body) as { id: number };
    if (
      JSON.stringify(rest) !== JSON.stringify({ ...JSON.parse(CREATE_BODY) }) ||
      !created.headers.get('location')?.endsWith(`/v1/pets/${id}`)
    ) {
      throw new Error(`${framework} ${side} create answered ${created.body}`);
    }
  }
}

/** The hand-written side of each framework's row, and what it is. */
const PEERS: Record<Framework, { readonly kind: PlainServerKind; readonly peer: string }> = {
  node: { kind: 'node-peer', peer: 'hand-written node:http peer of the whole contract' },
  fastify: { kind: 'fastify-peer', peer: 'hand-written Fastify 5 peer of the whole contract' },
  express: { kind: 'express-bare', peer: 'two bare Express routes' },
  hapi: { kind: 'hapi-bare', peer: 'two bare Hapi routes' },
  raw: { kind: 'raw-bare', peer: 'raw node:http server that skips the contract' },
};

/** Our side of each row; `raw` reads @petstore/node's own runs. */
const OURS: Record<Framework, PlainServerKind> = {
  node: 'node-ours',
  fastify: 'fastify-ours',
  express: 'express-ours',
  hapi: 'hapi-ours',
  raw: 'node-ours',
};

/** Every server a section needs, once each, with the control: a second copy of the first peer. */
function sectionServers(frameworks: readonly Framework[]): Map<string, PlainServerKind> {
  const servers = new Map<string, PlainServerKind>();
  for (const framework of frameworks) {
    servers.set(`${framework} peer`, PEERS[framework].kind);
    servers.set(`${OURS[framework]}`, OURS[framework]);
  }
  const first = frameworks[0];
  if (first !== undefined) servers.set(CONTROL, PEERS[first].kind);
  return servers;
}

const CONTROL = 'control (copy)';

/**
 * Every framework's hand-written side and ours, and the control, all started at once and run in
 * the same interleaved rounds (see interleave.ts), list then create. Each row's ratios are the
 * median of its per-round ratios, with min and max.
 */
export async function measureAdapterOverhead(
  config: BenchConfig,
  progress: Progress,
  frameworks: readonly Framework[] = FRAMEWORKS,
): Promise<AdapterOverhead[]> {
  const plan = config.http;
  const servers = sectionServers(frameworks);
  progress.log(`adapter overhead: starting ${servers.size} servers on the server core`);
  const children = new Map<string, BenchChild>();
  try {
    for (const [name, kind] of servers) children.set(name, await startServer({ kind }));
    const child = (name: string) => children.get(name) as BenchChild;
    for (const framework of frameworks) {
      await checkSameWork(child(`${framework} peer`), child(OURS[framework]), framework);
    }
    const results: AdapterOverhead[] = [];
    for (const operation of ['list', 'create'] as const) {
      const contestants = [...children].map(([name, server]) => ({
        name,
        child: server,
        spec: (bounds: RunBounds) => requestSpec(server, operation, bounds),
      }));
      const label = `adapter overhead ${operation}`;
      const runs = await runInterleaved(contestants, plan, progress, label, checked);
      const of = (name: string) => runs.get(name) ?? [];
      const firstPeer = `${frameworks[0]} peer`;
      const rowControl = control(`${firstPeer}, twice`, of(firstPeer), of(CONTROL));
      for (const framework of frameworks) {
        results.push({
          framework,
          operation,
          peer: PEERS[framework].peer,
          connections: plan.connections,
          secondsPerRun: plan.secondsPerRun,
          ...compared(of(`${framework} peer`), of(OURS[framework])),
          control: rowControl,
        });
      }
    }
    return results;
  } finally {
    await Promise.all([...children.values()].map((server) => server.stop()));
  }
}
