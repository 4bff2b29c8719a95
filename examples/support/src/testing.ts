export {
  CHROMIUM_PATH,
  chromiumAvailable,
  type PageVisit,
  visitInChromium,
} from './testing/browser.js';
export { ARTIFACTS_DIR, type DocsSuiteOptions, describeDocsPage } from './testing/docs-suite.js';
export {
  createTestDatabase,
  refusedPort,
  type TcpProxy,
  type TestDatabase,
  tcpProxy,
} from './testing/network.js';
export {
  APP_ENV_NAMES,
  type HalfSentRequest,
  halfSentPost,
  killStartedApps,
  type ListeningApp,
  type LogLine,
  type StartedApp,
  startApp,
  startListening,
} from './testing/process.js';
export { describeExampleApp, type ExampleAppSuiteOptions } from './testing/suite.js';
