export { FUZZ_KEY, matrixHost, matrixHosts, runtimeHost, runtimeHosts } from './hosts.js';
export { knownDifferencesOf } from './known-differences.js';
export { BASE, type FuzzRequest, fuzzRequestArbitrary, fuzzRequests } from './requests.js';
export {
  type DifferentialReport,
  describeReport,
  type Finding,
  type FuzzHost,
  type KnownDifference,
  runDifferential,
} from './run.js';
