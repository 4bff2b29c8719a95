export type { ApiKey, Verify } from './auth.js';
export { bearerToken, DEFAULT_VERIFY_TIMEOUT_MS } from './auth.js';
export { createPetStore } from './create-pet-store.js';
export type { ApiError, ErrorCode, ErrorDetail } from './errors.js';
export { ERROR_STATUS, errorResponse } from './errors.js';
export type {
  ParsedBody,
  PetStoreRequest,
  PetStoreResponse,
  RequestBody,
  RequestHeaders,
  UnreadableBody,
} from './http.js';
export type {
  DeprecatedCallEvent,
  DeprecationOptions,
  ErrorEvent,
  IdempotencyOptions,
  PetStoreHooks,
  PetStoreOptions,
  ResolvedOptions,
  ResponseEvent,
  ServerEntry,
} from './options.js';
export {
  DEFAULT_DEPRECATED_AT,
  DEFAULT_IDEMPOTENCY_RETENTION_MS,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_SUNSET_AT,
} from './options.js';
export type { PetStore } from './pet-store.js';
export { DEFAULT_LIMIT, MAX_LIMIT } from './query.js';
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
export {
  ErrorBodySchema,
  MAX_ID,
  NewPetSchema,
  OrderSchema,
  PET_STATUSES,
  PetSchema,
  PetStatusSchema,
} from './schemas.js';
export type {
  IdempotencyClaim,
  IdempotentCreateResult,
  PageQuery,
  PetPageQuery,
  PetStorage,
} from './storage.js';
export { isStorageUnavailable, StorageUnavailableError } from './storage.js';
