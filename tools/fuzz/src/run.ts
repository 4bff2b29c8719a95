import { type RawAnswer, rawRequest } from '@petstore/conformance';
import { judgeOutsideBase, judgeUnderBase, signature } from './judge.js';
import type { FuzzRequest } from './requests.js';

/** A host the fuzzer can start, listening on 127.0.0.1, with a fresh, empty store. */
export interface FuzzHost {
  readonly name: string;
  start(): Promise<{ readonly port: number; close(): Promise<void> }>;
}

/**
 * A difference this host has for a reason out of our hands (a runtime refusing a request
 * before any code runs), known by name: reported apart, never silently skipped.
 */
export interface KnownDifference {
  readonly name: string;
  readonly reason: string;
  readonly host: string;
  applies(request: FuzzRequest): boolean;
}

export interface Finding {
  /** Position of the request in the run. */
  readonly index: number;
  readonly host: string;
  readonly request: string;
  readonly problem: string;
}

export interface DifferentialReport {
  readonly seed: number;
  readonly count: number;
  readonly reference: string;
  readonly hosts: readonly string[];
  /** Requests under the mount path answered otherwise than by the reference host. */
  readonly differences: readonly Finding[];
  /** Answers that break a rule whatever the other hosts do. */
  readonly violations: readonly Finding[];
  /** Differences explained by a known difference, by its name. */
  readonly known: Readonly<Record<string, number>>;
  /** Requests per status, per host (`none`: no answer). */
  readonly statuses: Readonly<Record<string, Readonly<Record<string, number>>>>;
}

export interface RunOptions {
  readonly hosts: readonly FuzzHost[];
  readonly requests: readonly FuzzRequest[];
  readonly seed: number;
  readonly knownDifferences?: readonly KnownDifference[];
  /** Called as hosts get through the requests (`done` of `total`, all hosts together). */
  readonly onProgress?: (done: number, total: number) => void;
}

/** Every request, in order, on its own connection: the same sequence (and so the same state) on every host. */
async function answersOf(
  host: FuzzHost,
  requests: readonly FuzzRequest[],
  tick: () => void,
): Promise<RawAnswer[]> {
  const running = await host.start();
  try {
    const answers: RawAnswer[] = [];
    for (const request of requests) {
      answers.push(
        await rawRequest(running.port, request.bytes, {
          waitMs: 5000,
          head: request.method === 'HEAD',
        }),
      );
      tick();
    }
    return answers;
  } finally {
    await running.close();
  }
}

/**
 * Sends the same requests to every host (hosts in parallel, each host's requests one after
 * another) and holds them to one answer: the first host is the reference.
 */
export async function runDifferential(options: RunOptions): Promise<DifferentialReport> {
  const { hosts, requests, seed, knownDifferences = [] } = options;
  const [referenceHost] = hosts;
  if (referenceHost === undefined) throw new Error('the fuzzer needs at least one host');
  const total = hosts.length * requests.length;
  let done = 0;
  const tick = () => {
    done++;
    if (done % 500 === 0 || done === total) options.onProgress?.(done, total);
  };
  const answers = await Promise.all(hosts.map((host) => answersOf(host, requests, tick)));
  const differences: Finding[] = [];
  const violations: Finding[] = [];
  const known: Record<string, number> = {};
  const statuses: Record<string, Record<string, number>> = {};
  // Hosts whose store no longer holds what the reference's holds: a known difference let a
  // create through on one side only. Their later answers are compared without ids.
  const diverged = new Set<string>();
  requests.forEach((request, index) => {
    const reference = answers[0]?.[index] as RawAnswer;
    const expected = signature(request, reference);
    hosts.forEach((host, at) => {
      const answer = answers[at]?.[index] as RawAnswer;
      const counts = statuses[host.name] ?? {};
      statuses[host.name] = counts;
      const status = String(answer.status ?? 'none');
      counts[status] = (counts[status] ?? 0) + 1;
      const finding = (problem: string) => ({
        index,
        host: host.name,
        request: request.summary,
        problem,
      });
      const problem = request.underBase
        ? judgeUnderBase(request, answer)
        : judgeOutsideBase(request, answer);
      const withIds = !diverged.has(host.name);
      const got = signature(request, answer, withIds);
      const differs =
        at > 0 &&
        request.underBase &&
        got !== (withIds ? expected : signature(request, reference, false));
      if (problem === undefined && !differs) return;
      const excuse = knownDifferences.find(
        (difference) => difference.host === host.name && difference.applies(request),
      );
      if (excuse !== undefined) {
        known[excuse.name] = (known[excuse.name] ?? 0) + 1;
        if (answer.status === 201 || reference.status === 201) diverged.add(host.name);
        return;
      }
      if (problem !== undefined) violations.push(finding(problem));
      if (differs)
        differences.push(finding(`${referenceHost.name}: ${expected}\n    ${host.name}: ${got}`));
    });
  });
  return {
    seed,
    count: requests.length,
    reference: referenceHost.name,
    hosts: hosts.map((host) => host.name),
    differences,
    violations,
    known,
    statuses,
  };
}

/** A report as text: the counts, then the first findings of each kind, with how to replay them. */
export function describeReport(report: DifferentialReport, replay: string, shown = 10): string {
  const lines = [
    `differential fuzz: ${report.count} requests, seed ${report.seed}, hosts ${report.hosts.join(', ')} (reference ${report.reference})`,
    `differences under the mount path: ${report.differences.length}; rule violations: ${report.violations.length}`,
  ];
  for (const [name, count] of Object.entries(report.known))
    lines.push(`known difference "${name}": ${count}`);
  for (const [host, counts] of Object.entries(report.statuses)) {
    const shownCounts = Object.entries(counts)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([status, n]) => `${status}: ${n}`)
      .join(', ');
    lines.push(`  ${host}: ${shownCounts}`);
  }
  const list = (title: string, findings: readonly Finding[]) => {
    if (findings.length === 0) return;
    lines.push(`${title} (first ${Math.min(shown, findings.length)}):`);
    for (const finding of findings.slice(0, shown)) {
      lines.push(
        `  #${finding.index} ${finding.host}: ${finding.request}`,
        `    ${finding.problem}`,
      );
    }
  };
  list('differences', report.differences);
  list('violations', report.violations);
  if (report.differences.length + report.violations.length > 0) lines.push(`replay: ${replay}`);
  return lines.join('\n');
}
