import { type ConversionConfig, toJsonSchema, toJsonSchemaDefs } from '@valibot/to-json-schema';
import type * as v from 'valibot';
import { ERROR_STATUS, type ErrorCode } from './errors.js';
import type { HeaderDoc, OperationSpec } from './operations.js';
import type { ResolvedOptions } from './options.js';
import type { AnyParameter } from './params.js';
import {
  ErrorBodySchema,
  NewPetSchema,
  OrderSchema,
  OrdersSchema,
  PetSchema,
  PetStatusSchema,
  PetsSchema,
  type SchemaName,
} from './schemas.js';

type Json = Record<string, unknown>;

const schemas: Record<SchemaName, v.GenericSchema> = {
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

/** A JSON body, with its schema when the document has one. */
const json = (schema: Json | undefined) => ({
  'application/json': schema === undefined ? {} : { schema },
});

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
  request_timeout: 'The request was not received in time (`request_timeout`).',
  expectation_failed: 'An `Expect` other than `100-continue` (`expectation_failed`).',
  headers_too_large: 'Request headers too large (`headers_too_large`).',
  http_version_not_supported: 'Not HTTP/1.1 (`http_version_not_supported`).',
};

const HEADER_DOCS = {
  'WWW-Authenticate': { description: 'RFC 6750 challenge.', schema: { type: 'string' } },
  'Retry-After': {
    description: 'Seconds to wait before retrying.',
    schema: { type: 'integer', minimum: 0 },
  },
} satisfies Record<string, HeaderDoc>;

/** Headers an error carries, whichever operation answers it. */
const ERROR_HEADERS: Partial<Record<ErrorCode, readonly (keyof typeof HEADER_DOCS)[]>> = {
  unauthorized: ['WWW-Authenticate'],
  idempotency_key_in_use: ['Retry-After'],
  service_unavailable: ['Retry-After'],
};

const REQUEST_ID_HEADER = { 'X-Request-Id': { $ref: '#/components/headers/RequestId' } };

const response = (
  description: string,
  headers: Readonly<Record<string, unknown>>,
  body: SchemaName | undefined,
): Json => ({
  description,
  headers: { ...headers, ...REQUEST_ID_HEADER },
  content: json(body === undefined ? undefined : ref(body)),
});

/** One response per status; codes sharing a status share its description and headers. */
function errorResponses(codes: readonly ErrorCode[], operationHeaders: Json): Json {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = ERROR_STATUS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return Object.fromEntries(
    [...byStatus].map(([status, group]) => {
      // Authentication comes before the operation, so a 401 carries none of its headers.
      const headers: Json = status === 401 ? {} : { ...operationHeaders };
      for (const name of group.flatMap((code) => ERROR_HEADERS[code] ?? [])) {
        headers[name] = HEADER_DOCS[name];
      }
      const description = group.map((code) => ERROR_TEXT[code]).join(' ');
      return [status, response(description, headers, 'Error')];
    }),
  );
}

function parameter({ name, in: where, description, schema }: AnyParameter): Json {
  return {
    name,
    in: where,
    required: where === 'path',
    ...(description === undefined ? {} : { description }),
    schema: typeof schema === 'string' ? ref(schema) : paramSchema(schema),
  };
}

function operationObject(operation: OperationSpec, options: ResolvedOptions): Json {
  // The values this store sends are constants of the document (the default public path's).
  const operationHeaders = Object.fromEntries(
    (operation.headers ?? []).map(({ name, description, value }) => [
      name,
      { description, schema: { type: 'string', const: value(options, options.publicPath) } },
    ]),
  );
  const { success } = operation;
  return {
    operationId: operation.operationId,
    tags: operation.tags,
    summary: operation.summary,
    description: operation.description,
    ...(operation.deprecated ? { deprecated: true } : {}),
    ...(operation.public ? { security: [] } : {}),
    parameters: [
      ...operation.parameters.map(parameter),
      ...(operation.idempotent ? [{ $ref: '#/components/parameters/IdempotencyKey' }] : []),
      { $ref: '#/components/parameters/RequestId' },
    ],
    ...(operation.requestBody === undefined
      ? {}
      : { requestBody: { required: true, content: json(ref(operation.requestBody)) } }),
    responses: {
      [success.status]: response(
        success.description,
        { ...success.headers, ...operationHeaders },
        success.body,
      ),
      ...errorResponses(operation.errors, operationHeaders),
    },
  };
}

function pathsOf(operations: readonly OperationSpec[], options: ResolvedOptions): Json {
  const paths: Record<string, Json> = {};
  for (const operation of operations) {
    paths[operation.path] = {
      ...paths[operation.path],
      [operation.method.toLowerCase()]: operationObject(operation, options),
    };
  }
  return paths;
}

/** What each tag of the operation table groups. */
const TAGS: Readonly<Record<string, string>> = {
  pets: 'The animals of the store: list, add, get.',
  store: 'The store area: its orders.',
  document: 'This API described: the OpenAPI document, served without authentication.',
};

/** The OpenAPI 3.1 document: schemas from valibot, operations from the operation table. */
export function buildOpenApiDocument(
  operations: readonly OperationSpec[],
  options: ResolvedOptions,
): Json {
  const tags = [...new Set(operations.flatMap((operation) => operation.tags))];
  return {
    openapi: '3.1.0',
    info: {
      title: 'Pet Store',
      version: '1.0.0',
      description:
        'Manage the animals of a pet store. All operations need `Authorization: Bearer <API key>`.',
      license: { name: 'MIT', identifier: 'MIT' },
      contact: { name: 'Pet store maintainers', url: 'https://github.com/petstore/petstore' },
    },
    servers:
      options.servers.length > 0
        ? options.servers.map((server) => ({ ...server }))
        : [{ url: options.publicPath }],
    security: [{ bearerAuth: [] }],
    tags: tags.map((name) => ({ name, description: TAGS[name] ?? name })),
    paths: pathsOf(operations, options),
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
