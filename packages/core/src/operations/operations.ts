import {
  type AnyParameter,
  cursorParameter,
  limitParameter,
  petIdParameter,
  statusParameter,
} from '../input/params.js';
import type { ResolvedOptions } from '../options/options.js';
import { createPet } from './handlers/create-pet.js';
import { getOpenApi } from './handlers/get-openapi.js';
import { getPet } from './handlers/get-pet.js';
import { listOrders } from './handlers/list-orders.js';
import { listPets } from './handlers/list-pets.js';
import { deprecation, nextLink } from './operation-headers.js';
import type { OperationSpec } from './operation-spec.js';

/** Answers any authenticated operation can give: a bad key, a bug, a storage outage. */
const COMMON = ['unauthorized', 'internal_error', 'service_unavailable'] as const;

/** A row, its handler typed by its parameters (a handler needing another one does not compile). */
const operation = <const TParams extends readonly AnyParameter[]>(
  spec: OperationSpec<TParams>,
): OperationSpec => spec;

/** The API, one row per operation, in the order `Allow` and the document list them. */
export const OPERATIONS: readonly OperationSpec[] = [
  operation({
    method: 'GET',
    path: '/pets',
    operationId: 'listPets',
    tags: ['pets'],
    summary: 'List animals, ascending by id, one page at a time.',
    description:
      'Animals in ascending id order, at most `limit` of them, optionally only those with one `status`. When more follow, the `Link` header carries the next page (`rel="next"`, with the same `limit` and `status` and an opaque `cursor`); the last page has none.',
    handler: listPets,
    parameters: [limitParameter, statusParameter, cursorParameter],
    success: {
      status: 200,
      description: 'A page of animals (a plain array); `Link: rel="next"` when more exist.',
      headers: nextLink,
      body: 'Pets',
    },
    errors: ['invalid_request', ...COMMON],
  }),
  operation({
    method: 'POST',
    path: '/pets',
    operationId: 'createPet',
    tags: ['pets'],
    summary: 'Add an animal.',
    description:
      'Creates an animal and answers it with its new id and its `Location`. Send an `Idempotency-Key` to make a retry safe: the same key and body replay the first answer, never a second animal.',
    handler: createPet,
    parameters: [],
    idempotent: true,
    requestBody: 'NewPet',
    success: {
      status: 201,
      description: 'Created, or the first answer replayed for a repeated Idempotency-Key.',
      headers: {
        Location: { description: 'URL path of the new animal.', schema: { type: 'string' } },
        'Idempotent-Replayed': {
          description:
            '`true` when this is the replayed answer to an earlier request with the same Idempotency-Key.',
          schema: { type: 'string', const: 'true' },
        },
      },
      body: 'Pet',
    },
    errors: [
      'invalid_request',
      'payload_too_large',
      'unsupported_media_type',
      'idempotency_key_in_use',
      'idempotency_key_reused',
      ...COMMON,
    ],
  }),
  operation({
    method: 'GET',
    path: '/pets/{petId}',
    operationId: 'getPet',
    tags: ['pets'],
    summary: 'Get an animal (deprecated: use GET /pets with the status filter).',
    description:
      'One animal by id. Deprecated, to be removed on 5 December 2030: every answer carries `Deprecation`, `Sunset` and the successor `Link`.',
    handler: getPet,
    parameters: [petIdParameter],
    success: { status: 200, description: 'The animal.', body: 'Pet' },
    errors: ['invalid_request', 'not_found', ...COMMON],
    deprecated: true,
    headers: deprecation,
  }),
  operation({
    method: 'GET',
    path: '/store/orders',
    operationId: 'listOrders',
    tags: ['store'],
    summary: 'List store orders (provisional schema), ascending by id, one page at a time.',
    description:
      'Orders in ascending id order, paged like the animals (`limit`, `Link: rel="next"`). The order schema is provisional: the interface only says the listing exists.',
    handler: listOrders,
    parameters: [limitParameter, cursorParameter],
    success: {
      status: 200,
      description: 'A page of orders (a plain array); `Link: rel="next"` when more exist.',
      headers: nextLink,
      body: 'Orders',
    },
    errors: ['invalid_request', ...COMMON],
  }),
  operation({
    method: 'GET',
    path: '/openapi.json',
    operationId: 'getOpenApiDocument',
    tags: ['document'],
    summary: 'The OpenAPI document of this API',
    description: 'This document, without authentication.',
    handler: getOpenApi,
    parameters: [],
    success: { status: 200, description: 'OpenAPI 3.1 document.', body: undefined },
    // Public and without input: only the HTTP layer refuses it, as any request (every host).
    errors: ['expectation_failed'],
    public: true,
    enabled: (options) => options.exposeOpenApi,
  }),
];

/** The operations this store serves. */
export const operationsFor = (options: ResolvedOptions): readonly OperationSpec[] =>
  OPERATIONS.filter((operation) => operation.enabled?.(options) ?? true);
