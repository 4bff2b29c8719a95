export {
  type PetStoreListener,
  type PetStoreListenerOptions,
  petStoreListener,
} from './listener.js';
export { bodyFromParserError } from './parser-errors.js';
export { bodyOf, headersOf, type NodeRequest, originForm, toCoreRequest } from './request.js';
export { abandon, type NodeResponse, writeResponse } from './response.js';
