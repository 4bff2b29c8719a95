export type { ApiKey } from './auth/api-keys.js';
export type { Verify } from './auth/auth.js';
export { createPetStore, shedding } from './create-pet-store.js';
export type { ApiError, ErrorCode, ErrorDetail } from './http/errors.js';
export { errorResponse } from './http/errors.js';
export type {
  Handler,
  HandlerResponse,
  HostReadBody,
  ParsedBody,
  PetStoreRequest,
  PetStoreResponse,
  RequestBody,
  RequestHeaders,
  UnreadableBody,
} from './http/messages.js';
export type { Mount, MountOptions } from './http/mount.js';
export {
  checkPath,
  createMount,
  DEFAULT_API_PATH,
  readTarget,
  targetPath,
} from './http/mount.js';
export { isUsableHost, protocolRefusal } from './http/protocol.js';
export { requestIdOf } from './http/request-id.js';
export type {
  DeprecatedCallEvent,
  ErrorEvent,
  OperationEvent,
  PetStoreHooks,
  ResponseEvent,
  ShedCause,
} from './options/hooks.js';
export type {
  DeprecationOptions,
  IdempotencyOptions,
  LoadSheddingOptions,
  PetStoreOptions,
  ServerEntry,
} from './options/options.js';
export type { PetStore } from './pet-store.js';
export { CLIENT_CLOSED_REQUEST } from './pipeline/answer.js';
export type {
  ErrorBody,
  NewPet,
  Order,
  OrderInput,
  OrderStatus,
  Pet,
  PetInput,
  PetStatus,
} from './schemas/schemas.js';
export {
  MAX_ID,
  NewPetSchema,
  ORDER_STATUSES,
  PET_STATUSES,
  PetSchema,
} from './schemas/schemas.js';
export type {
  IdempotencyClaim,
  IdempotentCreateResult,
  PageQuery,
  PetPageQuery,
  PetStorage,
} from './storage/storage.js';
export { isStorageUnavailable, StorageUnavailableError } from './storage/storage.js';
