import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Cluster, PatroniNode } from './cluster.js';
import { type Fleet, KEY } from './fleet.js';
import {
  createLoad,
  describe,
  type Figures,
  figures,
  newRecording,
  probeInstances,
  type Recording,
  storedPets,
  timeline,
} from './load.js';
import { timelineSvg } from './plot.js';

// A run: clients and probes going while a schedule injects faults, then the figures from what
// the leader holds, a text report and the timeline as SVG.

export interface ScheduleContext {
  readonly cluster: Cluster;
  readonly recording: Recording;
  /** Resolves at `seconds` since the start (at once if past). */
  at(seconds: number): Promise<void>;
  /** The leader's node (waiting up to 30 s for one). */
  leaderNode(): Promise<PatroniNode>;
  /** kill -9 of the leader; resolves once it is dead. */
  killLeader(): Promise<PatroniNode>;
  /** SIGSTOP the leader for `seconds`, then SIGCONT. */
  hangLeader(seconds: number): Promise<PatroniNode>;
  /** Planned switchover to the synchronous standby. */
  switchover(): Promise<void>;
}

export interface RunResult {
  readonly figures: Figures;
  readonly report: string;
  readonly seconds: number;
  readonly svgPath: string | undefined;
}

export interface RunOptions {
  readonly cluster: Cluster;
  readonly fleet: Fleet;
  readonly clients: number;
  readonly title: string;
  /** Runs alongside the load; the load stops when it resolves. */
  readonly schedule: (ctx: ScheduleContext) => Promise<void>;
  /** Where the report and the SVG go (created); none when undefined. */
  readonly artifacts?: { readonly dir: string; readonly name: string };
}

export async function runScenario(options: RunOptions): Promise<RunResult> {
  const { cluster, fleet } = options;
  const recording = newRecording();
  const prefix = `run${Date.now().toString(36)}`;
  let running = true;
  const load = createLoad({
    url: fleet.url,
    apiKey: KEY,
    clients: options.clients,
    running: () => running,
    recording,
    prefix,
  });
  const probes = probeInstances(
    fleet.instances.map((app) => app.url),
    KEY,
    () => running,
    recording,
    prefix,
  );
  const leaderNode = async (): Promise<PatroniNode> => {
    const end = performance.now() + 30_000;
    for (;;) {
      const name = await cluster.leader();
      const node = cluster.nodes.find((n) => n.name === name);
      if (node !== undefined) return node;
      if (performance.now() > end) throw new Error('no leader within 30 s');
      await sleep(250);
    }
  };
  const ctx: ScheduleContext = {
    cluster,
    recording,
    at: (seconds) => sleep(Math.max(0, (seconds - recording.now()) * 1000)),
    leaderNode,
    async killLeader() {
      const node = await leaderNode();
      await node.kill();
      recording.note(`kill -9 leader ${node.name}`);
      return node;
    },
    async hangLeader(seconds) {
      const node = await leaderNode();
      node.freeze(true);
      recording.note(`SIGSTOP leader ${node.name} ${seconds} s`);
      await sleep(seconds * 1000);
      node.freeze(false);
      return node;
    },
    async switchover() {
      recording.note('switchover');
      const { status, body, from } = await cluster.switchover();
      if (status !== 200) throw new Error(`switchover from ${from}: ${status} ${body}`);
    },
  };
  try {
    await options.schedule(ctx);
  } finally {
    running = false;
    await Promise.all([load, probes]);
  }
  const end = recording.now();
  const stored = await storedPets(cluster.superuserUrl, prefix);
  const result = figures(recording, stored, fleet.instances.length, end);
  const report = `${options.title} (${end.toFixed(0)} s, ${options.clients} clients, ${fleet.instances.length} instances)\n${describe(result)}`;
  let svgPath: string | undefined;
  if (options.artifacts !== undefined) {
    await mkdir(options.artifacts.dir, { recursive: true });
    svgPath = join(options.artifacts.dir, `${options.artifacts.name}.svg`);
    await writeFile(
      svgPath,
      await timelineSvg(options.title, timeline(recording, end), recording.faults),
    );
    await writeFile(join(options.artifacts.dir, `${options.artifacts.name}.txt`), `${report}\n`);
  }
  return { figures: result, report, seconds: end, svgPath };
}
