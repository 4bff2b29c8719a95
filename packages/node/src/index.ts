export { bodyChunks } from './body-chunks.js';
export { bodyReader } from './body-reader.js';
export {
  type ClientErrorEvent,
  type ClientErrorHandlerOptions,
  continueWhenRead,
  installClientErrorHandler,
} from './client-errors.js';
export {
  LINGER_LIMITS,
  type LingerLimits,
  lingeringClose,
  lingerOnClose,
  lingerOnCloseAll,
} from './linger.js';
export {
  type PetStoreListener,
  type PetStoreListenerOptions,
  petStoreListener,
} from './listener.js';
export { bodyFromParserError } from './parser-errors.js';
export { serializePipelinedRequests } from './pipelining.js';
export {
  bodyOf,
  headersOf,
  type NodeRequest,
  toCoreRequest,
} from './request.js';
export { type NodeResponse, respond, writeResponse } from './response.js';
