export { bundleHarness, type Runtime } from './bundle.js';
export { RUNTIME_EXPECTATIONS } from './expectations.js';
export { type RuntimeProcess, runtimeBinary, startRuntime } from './runtime.js';
export {
  memoryStorage,
  type PreparedStorage,
  type PrepareStorage,
  runtimeStoreHost,
} from './store-host.js';
export { type RuntimeExpectations, runConformanceOnRuntime, runtimeForFile } from './suite.js';
