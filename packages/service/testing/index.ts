export { type RawAnswer, type RawRequestOptions, rawRequest } from '@petstore/conformance';
export { type AttackSuiteOptions, describeSingleClientAttacks } from './attack-suite.js';
export {
  CHROMIUM_PATH,
  chromiumAvailable,
  type PageVisit,
  visitInChromium,
} from './browser.js';
export { type CompiledSuiteOptions, describeCompiledApp } from './compiled-suite.js';
export { ARTIFACTS_DIR, type DocsSuiteOptions, describeDocsPage } from './docs-suite.js';
export { describeDurableStorage } from './durable-suite.js';
export {
  type FuzzRequest,
  type FuzzResult,
  fuzzRequestArbitrary,
  fuzzRequests,
  judge,
  runFuzz,
} from './fuzz.js';
export { HOSTILE_REQUESTS, type HostileRequest } from './hostile.js';
export {
  describeHostileTraffic,
  type HostileSuiteOptions,
  SUITE_FUZZ_COUNT,
} from './hostile-suite.js';
export { describeIdempotencyScopes } from './idempotency-scope-suite.js';
export { describeMetrics } from './metrics-suite.js';
export {
  createTestDatabase,
  refusedPort,
  type TcpProxy,
  type TestDatabase,
  tcpProxy,
} from './network.js';
export { oldNode } from './old-node.js';
export { describeOperations, type OperationsSuiteOptions } from './operations-suite.js';
export {
  APP_ENV_NAMES,
  type HalfSentRequest,
  halfSentPost,
  killStartedApps,
  type ListeningApp,
  type LogLine,
  type StartedApp,
  type StartOptions,
  startApp,
  startListening,
} from './process.js';
export { describeSignalsThroughPnpm, type SignalSuiteOptions } from './signals-suite.js';
export { describeExampleApp, type ExampleAppSuiteOptions } from './suite.js';
export { describeTracing } from './tracing-suite.js';
