export {
  type CallOptions,
  type CreatePetOptions,
  createPetStoreClient,
  DEFAULT_MAX_PAGES,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_RETRIES,
  DEFAULT_RETRY_BUDGET_MS,
  DEFAULT_TIMEOUT_MS,
  type OrdersQuery,
  type PetStoreClient,
  type PetStoreClientOptions,
  type PetsQuery,
} from './client.js';
export { PetStoreError, type PetStoreErrorCode, type PetStoreErrorFields } from './errors.js';
export type { components, operations, paths } from './generated/openapi.js';
export {
  BASE_BACKOFF_MS,
  MAX_BACKOFF_MS,
  MAX_RETRY_AFTER_MS,
  type RetryEvent,
  type RetryReason,
} from './retry.js';
export { DEFAULT_RETRY_TOKENS, type RetryTokensOptions } from './retry-tokens.js';
export type {
  ErrorBody,
  ErrorDetail,
  ListOrdersQuery,
  ListPetsQuery,
  NewPet,
  Order,
  Page,
  Pet,
  PetStatus,
} from './types.js';
