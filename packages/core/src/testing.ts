export {
  type AdapterScenarioOptions,
  MOUNT_PREFIXES,
  runAdapterScenarios,
} from './testing/adapter-scenarios.js';
export { conformanceCases } from './testing/conformance/cases.js';
export { type RunConformanceOptions, runConformance } from './testing/conformance/run.js';
export type {
  CaseContext,
  ConformanceCase,
  Expectation,
  HookEvents,
  ScenarioCase,
  TableCase,
} from './testing/conformance/types.js';
export { hangUpMidBody, waitUntil } from './testing/hang-up.js';
export { POUR_TOTAL, type PourOutcome, pour } from './testing/pour.js';
export { createResponseValidator } from './testing/response-validator.js';
export * from './testing/storage-contract.js';
export {
  coreTarget,
  httpTarget,
  type RunningServer,
  sendHttp,
  serveNodeServer,
} from './testing/targets.js';
export type { ConformanceTarget, WireRequest, WireResponse } from './testing/wire.js';
