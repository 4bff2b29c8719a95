/** Starts a bench server child (entry.ts) pinned to the server core, and waits for its port. */
import { type BenchChild, startChild } from '../child.js';
import { SERVER_CPU } from '../cpu.js';
import type { ServerSpec } from './spec.js';

const SERVER_ENTRY = new URL('./entry.ts', import.meta.url);

export const startServer = (
  spec: ServerSpec,
  nodeFlags: readonly string[] = [],
): Promise<BenchChild> =>
  startChild(SERVER_ENTRY, [JSON.stringify(spec)], { cpu: SERVER_CPU, nodeFlags });
