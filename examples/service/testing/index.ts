export { type RawAnswer, type RawRequestOptions, rawRequest } from '@petstore/conformance';
export {
  CHROMIUM_PATH,
  chromiumAvailable,
  type PageVisit,
  visitInChromium,
} from './testing/browser.js';
export { type CompiledSuiteOptions, describeCompiledApp } from './testing/compiled-suite.js';
export { ARTIFACTS_DIR, type DocsSuiteOptions, describeDocsPage } from './testing/docs-suite.js';
export {
  type FuzzRequest,
  type FuzzResult,
  fuzzRequestArbitrary,
  fuzzRequests,
  judge,
  runFuzz,
} from './testing/fuzz.js';
export { HOSTILE_REQUESTS, type HostileRequest } from './testing/hostile.js';
export {
  describeHostileTraffic,
  type HostileSuiteOptions,
  SUITE_FUZZ_COUNT,
} from './testing/hostile-suite.js';
export { describeMetrics } from './testing/metrics-suite.js';
export {
  createTestDatabase,
  refusedPort,
  type TcpProxy,
  type TestDatabase,
  tcpProxy,
} from './testing/network.js';
export { describeOperations, type OperationsSuiteOptions } from './testing/operations-suite.js';
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
} from './testing/process.js';
export { describeSignalsThroughPnpm, type SignalSuiteOptions } from './testing/signals-suite.js';
export { describeExampleApp, type ExampleAppSuiteOptions } from './testing/suite.js';
export { describeTracing } from './testing/tracing-suite.js';
