import type { PetStorage } from '@petstore/core';

// Named from the port itself, so they follow @petstore/core without needing it to export them.
export type IdempotencyClaim = Parameters<PetStorage['createPetIdempotent']>[1];
export type IdempotentCreateResult = Awaited<ReturnType<PetStorage['createPetIdempotent']>>;
