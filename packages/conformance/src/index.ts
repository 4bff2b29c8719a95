export {
  type AdapterScenarioOptions,
  MOUNT_PREFIXES,
  runAdapterScenarios,
} from './adapter-scenarios.js';
export { storeForCase } from './conformance/case-store.js';
export { conformanceCases } from './conformance/cases.js';
export { API_KEY, SECOND_API_KEY } from './conformance/helpers.js';
export { type RunConformanceOptions, runConformance } from './conformance/run.js';
export type {
  CaseContext,
  ConformanceCase,
  Expectation,
  HookEvents,
  ScenarioCase,
  TableCase,
} from './conformance/types.js';
export { hangUpMidBody, waitUntil } from './hang-up.js';
export type { HostedSetup, HostedStore, StoreHost } from './hosted.js';
export { POUR_TOTAL, type PourOutcome, pour } from './pour.js';
export { type RawAnswer, type RawRequestOptions, rawRequest } from './raw.js';
export { createResponseValidator } from './response-validator.js';
export * from './storage-contract.js';
export {
  coreTarget,
  httpTarget,
  type RunningServer,
  sendHttp,
  serveNodeServer,
} from './targets.js';
export type { ConformanceTarget, WireRequest, WireResponse } from './wire.js';
