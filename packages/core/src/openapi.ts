import { type ConversionConfig, toJsonSchema, toJsonSchemaDefs } from '@valibot/to-json-schema';
import type * as v from 'valibot';
import { ERROR_STATUS, type ErrorCode } from './errors.js';
import type { ResolvedOptions } from './options.js';
import { CursorParamSchema, IdParamSchema, LimitParamSchema } from './query.js';
import {
  ErrorBodySchema,
  NewPetSchema,
  OrderSchema,
  OrdersSchema,
  PetSchema,
  PetStatusSchema,
  PetsSchema,
} from './schemas.js';

type Json = Record<string, unknown>;

const schemas = {
  Pet: PetSchema,
  NewPet: NewPetSchema,
  Pets: PetsSchema,
  PetStatus: PetStatusSchema,
  Order: OrderSchema,
  Orders: OrdersSchema,
  Error: ErrorBodySchema,
};

// `check` actions hold rules JSON Schema states through metadata (maxLength) or cannot state at all.
const CONVERSION: ConversionConfig = {
  target: 'draft-2020-12',
  typeMode: 'output',
  ignoreActions: ['check'],
};

const ref = (name: keyof typeof schemas) => ({ $ref: `#/components/schemas/${name}` });

/** JSON Schema 2020-12 (OpenAPI 3.1's dialect) with refs pointed at components. */
function componentSchemas(): Json {
  const defs = toJsonSchemaDefs(schemas, CONVERSION);
  return JSON.parse(JSON.stringify(defs).replaceAll('"#/$defs/', '"#/components/schemas/')) as Json;
}

const paramSchema = (schema: v.GenericSchema): Json => {
  const { $schema: _, ...rest } = toJsonSchema(schema, CONVERSION);
  return rest;
};

const json = (schema: Json) => ({ 'application/json': { schema } });

const ERROR_TEXT: Record<ErrorCode, string> = {
  invalid_request:
    'Invalid parameters or body (`invalid_request`), or malformed JSON (`malformed_json`).',
  malformed_json: 'Malformed JSON.',
  unauthorized: 'API key missing or invalid (`unauthorized`).',
  not_found: 'No such resource (`not_found`).',
  method_not_allowed: 'Method not allowed (`method_not_allowed`).',
  idempotency_key_in_use:
    'A request with this Idempotency-Key is still in flight (`idempotency_key_in_use`).',
  payload_too_large: 'Body over the size limit (`payload_too_large`).',
  unsupported_media_type: 'Body is not application/json (`unsupported_media_type`).',
  idempotency_key_reused:
    'Idempotency-Key reused with a different body (`idempotency_key_reused`).',
  internal_error: 'Unexpected error (`internal_error`).',
  service_unavailable:
    'Storage unreachable (`service_unavailable`); retry after `Retry-After` seconds.',
};

const HEADER_DOCS: Record<string, Json> = {
  'WWW-Authenticate': { description: 'RFC 6750 challenge.', schema: { type: 'string' } },
  'Retry-After': {
    description: 'Seconds to wait before retrying.',
    schema: { type: 'integer', minimum: 0 },
  },
};

function errorResponses(codes: readonly ErrorCode[], extraHeaders: Json = {}): Json {
  const byStatus: Record<number, ErrorCode[]> = {};
  for (const code of codes) {
    const status = ERROR_STATUS[code];
    byStatus[status] = [...(byStatus[status] ?? []), code];
  }
  return Object.fromEntries(
    Object.entries(byStatus).map(([status, group]) => {
      const headers: Json = { ...extraHeaders };
      if (status === '401') headers['WWW-Authenticate'] = HEADER_DOCS['WWW-Authenticate'];
      if (status === '503' || status === '409') headers['Retry-After'] = HEADER_DOCS['Retry-After'];
      const description = group.map((code) => ERROR_TEXT[code]).join(' ');
      return [status, { description, headers, content: json(ref('Error')) }];
    }),
  );
}

const OPENAPI_OPERATION = {
  get: {
    operationId: 'getOpenApiDocument',
    summary: 'This document.',
    security: [],
    responses: {
      200: { description: 'OpenAPI 3.1 document.', content: { 'application/json': {} } },
    },
  },
};

/** Every operation takes an X-Request-Id and every answer carries one. */
function withRequestIds(paths: Record<string, Record<string, Json>>): Json {
  return Object.fromEntries(
    Object.entries(paths).map(([path, operations]) => [
      path,
      Object.fromEntries(
        Object.entries(operations).map(([method, operation]) => {
          const responses = Object.fromEntries(
            Object.entries(operation.responses as Record<string, Json>).map(
              ([status, response]) => [
                status,
                {
                  ...response,
                  headers: {
                    ...(response.headers as Json),
                    'X-Request-Id': { $ref: '#/components/headers/RequestId' },
                  },
                },
              ],
            ),
          );
          const parameters = [
            ...((operation.parameters as Json[]) ?? []),
            { $ref: '#/components/parameters/RequestId' },
          ];
          return [method, { ...operation, parameters, responses }];
        }),
      ),
    ]),
  );
}

const COMMON_ERRORS: readonly ErrorCode[] = [
  'unauthorized',
  'internal_error',
  'service_unavailable',
];

/** The OpenAPI 3.1 document: schemas from valibot, operations from this table. */
export function buildOpenApiDocument(options: ResolvedOptions, basePath: string): Json {
  const limit = {
    name: 'limit',
    in: 'query',
    required: false,
    schema: paramSchema(LimitParamSchema),
  };
  const cursor = {
    name: 'cursor',
    in: 'query',
    required: false,
    description: 'Opaque cursor taken from the `Link: rel="next"` header of the previous page.',
    schema: paramSchema(CursorParamSchema),
  };
  const nextLinkHeader = {
    Link: {
      description: 'RFC 8288 link to the next page (`rel="next"`), absent on the last page.',
      schema: { type: 'string' },
    },
  };
  const deprecation = {
    Deprecation: {
      description: 'RFC 9745: when this operation was deprecated, as `@<unix-seconds>`.',
      schema: { type: 'string', const: `@${Math.floor(options.deprecatedAt.getTime() / 1000)}` },
    },
    Sunset: {
      description: 'RFC 8594: when this operation will be removed.',
      schema: { type: 'string', const: options.sunsetAt.toUTCString() },
    },
    Link: {
      description: 'The replacement: `rel="successor-version"`.',
      schema: { type: 'string', const: `<${basePath}/pets>; rel="successor-version"` },
    },
  };

  return {
    openapi: '3.1.0',
    info: {
      title: 'Pet Store',
      version: '1.0.0',
      description:
        'Manage the animals of a pet store. All operations need `Authorization: Bearer <API key>`.',
    },
    servers:
      options.servers.length > 0
        ? options.servers.map((server) => ({ ...server }))
        : [{ url: basePath }],
    security: [{ bearerAuth: [] }],
    tags: [{ name: 'pets' }, { name: 'store' }],
    paths: withRequestIds({
      '/pets': {
        get: {
          operationId: 'listPets',
          tags: ['pets'],
          summary: 'List animals, ascending by id, one page at a time.',
          parameters: [
            limit,
            { name: 'status', in: 'query', required: false, schema: ref('PetStatus') },
            cursor,
          ],
          responses: {
            200: {
              description: 'A page of animals (a plain array); `Link: rel="next"` when more exist.',
              headers: nextLinkHeader,
              content: json(ref('Pets')),
            },
            ...errorResponses(['invalid_request', ...COMMON_ERRORS]),
          },
        },
        post: {
          operationId: 'createPet',
          tags: ['pets'],
          summary: 'Add an animal.',
          parameters: [{ $ref: '#/components/parameters/IdempotencyKey' }],
          requestBody: { required: true, content: json(ref('NewPet')) },
          responses: {
            201: {
              description: 'Created, or the first answer replayed for a repeated Idempotency-Key.',
              headers: {
                Location: {
                  description: 'URL path of the new animal.',
                  schema: { type: 'string' },
                },
                'Idempotent-Replayed': {
                  description:
                    '`true` when this is the replayed answer to an earlier request with the same Idempotency-Key.',
                  schema: { type: 'string', const: 'true' },
                },
              },
              content: json(ref('Pet')),
            },
            ...errorResponses([
              'invalid_request',
              'payload_too_large',
              'unsupported_media_type',
              'idempotency_key_in_use',
              'idempotency_key_reused',
              ...COMMON_ERRORS,
            ]),
          },
        },
      },
      '/pets/{petId}': {
        get: {
          operationId: 'getPet',
          tags: ['pets'],
          summary: 'Get an animal (deprecated: use GET /pets with the status filter).',
          deprecated: true,
          parameters: [
            {
              name: 'petId',
              in: 'path',
              required: true,
              schema: paramSchema(IdParamSchema),
            },
          ],
          responses: {
            200: { description: 'The animal.', headers: deprecation, content: json(ref('Pet')) },
            ...errorResponses(
              ['invalid_request', 'not_found', 'internal_error', 'service_unavailable'],
              deprecation,
            ),
            ...errorResponses(['unauthorized']),
          },
        },
      },
      '/store/orders': {
        get: {
          operationId: 'listOrders',
          tags: ['store'],
          summary: 'List store orders (provisional schema), ascending by id, one page at a time.',
          parameters: [limit, cursor],
          responses: {
            200: {
              description: 'A page of orders (a plain array); `Link: rel="next"` when more exist.',
              headers: nextLinkHeader,
              content: json(ref('Orders')),
            },
            ...errorResponses(['invalid_request', ...COMMON_ERRORS]),
          },
        },
      },
      ...(options.exposeOpenApi ? { '/openapi.json': OPENAPI_OPERATION } : {}),
    }),
    components: {
      schemas: componentSchemas(),
      parameters: {
        IdempotencyKey: {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description:
            'Makes a retry safe: the same key with the same body replays the first 201 (for the retention window, 24 h by default), scoped to your API key.',
          schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7E]+$' },
        },
        RequestId: {
          name: 'X-Request-Id',
          in: 'header',
          required: false,
          description:
            'Your id for this request (1 to 128 visible ASCII characters), echoed back; one is generated otherwise.',
          schema: { type: 'string', minLength: 1, maxLength: 128, pattern: '^[\\x21-\\x7E]+$' },
        },
      },
      headers: {
        RequestId: {
          description: 'The request id: yours if you sent a sane one, else generated.',
          schema: { type: 'string' },
        },
      },
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description: 'The API key as a bearer token.',
        },
      },
    },
  };
}
