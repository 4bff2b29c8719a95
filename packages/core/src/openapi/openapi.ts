import type { AnyParameter } from '../input/params.js';
import type { OperationSpec } from '../operations/operation-spec.js';
import type { ResolvedOptions } from '../options/options.js';
import { errorResponses, response } from './openapi-responses.js';
import { componentSchemas, type Json, json, paramSchema, ref } from './openapi-schemas.js';

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
        success.status === 204 ? 'none' : success.body,
      ),
      ...errorResponses(operation.errors, operationHeaders, options.loadShedding !== undefined),
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
          // Any value is accepted: an unusable one is replaced, never refused. A pattern here
          // would read as "refused otherwise" to tools that test the document.
          description:
            'Your id for this request, echoed back when it is 1 to 128 visible ASCII characters (`\\x21`-`\\x7E`); any other value is replaced by a generated id, never refused.',
          schema: { type: 'string' },
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
