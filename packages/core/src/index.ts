export { CLIENT_CLOSED_REQUEST } from './answer.js';
export type { ApiKey } from './api-keys.js';
export type { Verify } from './auth.js';
export { createPetStore } from './create-pet-store.js';
export { renamedOption } from './deprecated-options.js';
export type { ApiError, ErrorCode, ErrorDetail } from './errors.js';
export { errorResponse } from './errors.js';
export type {
  DeprecatedCallEvent,
  ErrorEvent,
  OperationEvent,
  PetStoreHooks,
  ResponseEvent,
} from './hooks.js';
export type {
  ParsedBody,
  PetStoreRequest,
  PetStoreResponse,
  RequestBody,
  RequestHeaders,
  UnreadableBody,
} from './http.js';
export type {
  DeprecationOptions,
  IdempotencyOptions,
  PetStoreOptions,
  ServerEntry,
} from './options.js';
export { belowMount, checkPath, parsePath, readTarget } from './paths.js';
export type { PetStore } from './pet-store.js';
export { isUsableHost, protocolRefusal } from './protocol.js';
export { requestIdOf } from './request-id.js';
export type {
  ErrorBody,
  NewPet,
  Order,
  OrderInput,
  OrderStatus,
  Pet,
  PetInput,
  PetStatus,
} from './schemas.js';
export { MAX_ID, NewPetSchema, PET_STATUSES, PetSchema } from './schemas.js';
export type {
  IdempotencyClaim,
  IdempotentCreateResult,
  PageQuery,
  PetPageQuery,
  PetStorage,
} from './storage.js';
export { isStorageUnavailable, StorageUnavailableError } from './storage.js';
