import type { Handler, PetStoreRequest, PetStoreResponse } from './http/messages.js';

/** What `createPetStore` returns: one function from request to response, and its document. */
export interface PetStore extends Handler {
  /** Never rejects: every failure becomes an Error response. */
  handle(request: PetStoreRequest): Promise<PetStoreResponse>;
  /** The OpenAPI 3.1 document describing this store (as served at `<base>/openapi.json`). */
  readonly openApiDocument: Readonly<Record<string, unknown>>;
}
