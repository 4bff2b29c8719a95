export { FUZZ_KEY, matrixHost, matrixHosts } from './hosts.js';
export { BASE, type FuzzRequest, fuzzRequestArbitrary, fuzzRequests } from './requests.js';
export {
  type DifferentialReport,
  describeReport,
  type Finding,
  type FuzzHost,
  type KnownDifference,
  runDifferential,
} from './run.js';
