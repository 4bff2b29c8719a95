import { METHODS } from 'node:http';
import { isUsableHost } from '@petstore/core';
import type { FuzzRequest } from './requests.js';
import type { KnownDifference } from './run.js';

/**
 * What a runtime's own HTTP server answers before any code of ours runs, where a Node host
 * (with `installClientErrorHandler`) answers the Error body: out of our hands, so recognised
 * by name, and each listed in docs/contract.md. A difference these do not explain is a bug.
 */
interface RuntimeRule {
  readonly name: string;
  readonly reason: string;
  readonly runtimes: readonly string[];
  readonly applies: (request: FuzzRequest) => boolean;
}

const NODE_METHODS: ReadonlySet<string> = new Set(METHODS);
const backslashInPath = ({ target }: FuzzRequest) => {
  const query = target.indexOf('?');
  const backslash = target.indexOf('\\');
  return backslash !== -1 && (query === -1 || backslash < query);
};

const RULES: readonly RuntimeRule[] = [
  {
    name: 'a version other than HTTP/1.x',
    reason: 'the runtime refuses it itself (Bun 505, Deno and workerd 400), without a body',
    runtimes: ['bun', 'deno', 'workerd'],
    applies: ({ parts }) => parts.version !== 'HTTP/1.1' && parts.version !== 'HTTP/1.0',
  },
  {
    name: 'a method Node does not know',
    reason: 'the runtime refuses it itself (workerd 501, Bun and Deno 400 or a closed connection)',
    runtimes: ['bun', 'deno', 'workerd'],
    applies: ({ parts }) => !NODE_METHODS.has(parts.method),
  },
  {
    name: 'CONNECT',
    reason: 'the runtime answers it itself (Bun and workerd 500, Deno 400)',
    runtimes: ['bun', 'deno', 'workerd'],
    applies: ({ parts }) => parts.method === 'CONNECT',
  },
  {
    name: 'a missing, repeated or unusable Host',
    reason: 'the runtime refuses it itself (400 or 500, without the Error body)',
    runtimes: ['bun', 'deno', 'workerd'],
    applies: ({ parts }) => parts.hosts.length !== 1 || !isUsableHost(parts.hosts[0] ?? ''),
  },
  {
    name: 'Content-Length twice or with Transfer-Encoding',
    reason: 'the runtime refuses the framing itself, without a body',
    runtimes: ['bun', 'deno', 'workerd'],
    applies: ({ parts }) =>
      parts.hasBody && (parts.framing === 'both' || parts.framing === 'two-lengths'),
  },
  {
    name: 'Transfer-Encoding on HTTP/1.0',
    reason: 'the runtime refuses chunked framing on HTTP/1.0 itself',
    runtimes: ['bun', 'deno', 'workerd'],
    applies: ({ parts }) =>
      parts.version === 'HTTP/1.0' &&
      parts.hasBody &&
      (parts.framing === 'chunked' || parts.framing === 'both'),
  },
  {
    name: 'a backslash in the path',
    reason:
      'the runtime reads \\ as / (its URL parser runs before our code, which never sees the \\)',
    runtimes: ['bun', 'deno', 'workerd'],
    applies: backslashInPath,
  },
  {
    name: 'an empty Content-Type line beside another',
    reason:
      'the runtime drops an empty header line as it parses the request, so the other Content-Type is the only one left (two were sent: 415 elsewhere)',
    runtimes: ['deno', 'workerd'],
    applies: ({ parts }) => parts.contentTypes.length > 1 && parts.contentTypes.includes(''),
  },
  {
    name: 'Upgrade: websocket without a WebSocket handshake',
    reason: 'Deno takes it for a WebSocket upgrade and refuses it itself (400)',
    runtimes: ['deno'],
    applies: ({ parts }) => parts.extra.includes('Upgrade: websocket'),
  },
  {
    name: 'an Expect other than 100-continue',
    reason: 'workerd answers it itself (500)',
    runtimes: ['workerd'],
    applies: ({ parts }) => parts.extra.includes('Expect: foo'),
  },
];

/** The known differences of the runtimes among `hosts`. */
export function knownDifferencesOf(hosts: readonly string[]): KnownDifference[] {
  return RULES.flatMap((rule) =>
    rule.runtimes
      .filter((runtime) => hosts.includes(runtime))
      .map((runtime) => ({
        name: `${runtime}: ${rule.name}`,
        reason: rule.reason,
        host: runtime,
        applies: rule.applies,
      })),
  );
}
