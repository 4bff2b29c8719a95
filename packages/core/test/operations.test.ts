import { describe, expect, it } from 'vitest';
import { createAuthenticator } from '../src/auth/auth.js';
import { createPetStore } from '../src/index.js';
import { buildOpenApiDocument } from '../src/openapi/openapi.js';
import { RequestContext, reply } from '../src/operations/context.js';
import type { OperationSpec } from '../src/operations/operation-spec.js';
import { OPERATIONS } from '../src/operations/operations.js';
import { compileRouter } from '../src/operations/router.js';
import { resolveOptions } from '../src/options/options.js';
import { answer } from '../src/pipeline/answer.js';
import { arrayStorage } from './support/array-storage.js';

type Json = Record<string, unknown>;

const route = compileRouter(OPERATIONS);
const store = (exposeOpenApi = true) =>
  createPetStore({ storage: arrayStorage(), apiKeys: ['test-key-0123456789'], exposeOpenApi });

/** A concrete path for a template: every parameter becomes `1`. */
const concrete = (template: string) => template.replaceAll(/\{[^}]+\}/g, '1');

describe('the operation table', () => {
  it('routes every row to its own operation, parameters captured', () => {
    for (const operation of OPERATIONS) {
      const match = route(operation.method, concrete(operation.path));
      expect(match.kind === 'operation' && match.operation, operation.operationId).toBe(operation);
    }
    const getPet = route('GET', '/pets/42');
    expect(getPet.kind === 'operation' && getPet.params).toEqual(['42']);
  });

  it('answers Allow with the methods of the path, in table order', () => {
    expect(route('DELETE', '/pets')).toMatchObject({
      kind: 'method_not_allowed',
      allow: 'GET, POST',
    });
    expect(route('PUT', '/pets/1')).toMatchObject({ kind: 'method_not_allowed', allow: 'GET' });
  });

  it('matches methods exactly and never through the prototype', () => {
    for (const method of ['get', '__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      expect(route(method, '/pets').kind, method).toBe('method_not_allowed');
    }
  });

  it('finds nothing for near misses of a path', () => {
    for (const path of [
      '/pets/',
      '/pets//',
      '/pets/1/',
      '/pets/1/2',
      '/PETS',
      '/openapi.jsonx',
      '/openapiXjson',
      '',
    ]) {
      expect(route('GET', path).kind, path).toBe('not_found');
    }
  });

  it('refuses two rows for the same method and path', () => {
    const [first] = OPERATIONS as [OperationSpec];
    expect(() => compileRouter([first, { ...first, operationId: 'again' }])).toThrow(
      /two operations/,
    );
  });

  it('documents exactly the operations the store serves, with their ids', () => {
    for (const exposeOpenApi of [true, false]) {
      const served = OPERATIONS.filter(
        (o) => exposeOpenApi || o.operationId !== 'getOpenApiDocument',
      );
      const paths = store(exposeOpenApi).openApiDocument.paths as Record<
        string,
        Record<string, Json>
      >;
      const documented = Object.entries(paths).flatMap(([path, methods]) =>
        Object.entries(methods).map(
          ([method, op]) => `${method.toUpperCase()} ${path} ${String(op.operationId)}`,
        ),
      );
      expect(documented).toEqual(served.map((o) => `${o.method} ${o.path} ${o.operationId}`));
    }
  });

  it('sends the documented value of each operation header', async () => {
    const storeWithDefaults = store();
    const document = storeWithDefaults.openApiDocument as {
      paths: Record<
        string,
        Record<
          string,
          { responses: Record<string, { headers: Record<string, { schema: { const?: string } }> }> }
        >
      >;
    };
    for (const operation of OPERATIONS.filter((o) => o.headers !== undefined)) {
      const res = await storeWithDefaults.handle({
        method: operation.method,
        path: concrete(operation.path),
        headers: { authorization: 'Bearer test-key-0123456789' },
      });
      const documented =
        document.paths[operation.path]?.[operation.method.toLowerCase()]?.responses[
          String(res.status)
        ]?.headers;
      for (const header of operation.headers ?? []) {
        expect(res.headers[header.name.toLowerCase()], header.name).toBe(
          documented?.[header.name]?.schema.const,
        );
      }
    }
  });
});

describe('the table admits what an HTTP API needs', () => {
  // docs/architecture.md, "Adding an operation": a row like this one is where it starts.
  const deletePet = {
    method: 'DELETE',
    path: '/pets/{petId}',
    operationId: 'deletePet',
    tags: ['pets'],
    summary: 'Remove an animal.',
    description: 'A row no store serves: it shows what the table takes.',
    parameters: [],
    handler: () => reply(204, undefined),
    success: { status: 204, description: 'Removed.' },
    errors: ['not_found'],
  } satisfies OperationSpec;
  const operations = [...OPERATIONS, deletePet];
  const options = resolveOptions({ storage: arrayStorage(), apiKeys: ['test-key-0123456789'] });

  it('routes a DELETE beside the GET of its path, and says so in Allow', () => {
    const route = compileRouter(operations);
    expect(route('DELETE', '/pets/7')).toMatchObject({ kind: 'operation', params: ['7'] });
    expect(route('PUT', '/pets/7')).toMatchObject({ allow: 'GET, DELETE' });
  });

  it('documents a 204 without content', () => {
    const paths = buildOpenApiDocument(operations, options).paths as Record<
      string,
      Record<string, { responses: Record<string, Json> }>
    >;
    const noContent = paths['/pets/{petId}']?.delete?.responses['204'];
    expect(noContent).toMatchObject({ description: 'Removed.' });
    expect(noContent).not.toHaveProperty('content');
    // A 200 keeps its JSON content.
    expect(paths['/pets/{petId}']?.get?.responses['200']).toHaveProperty('content');
  });

  it('answers a 204 with no body and no content type', () => {
    const parts = {
      options,
      openApiDocument: {},
      authenticate: createAuthenticator({ apiKeys: ['test-key-0123456789'] }),
    };
    const context = new RequestContext(
      parts,
      { method: 'DELETE', path: '/pets/7', headers: {} },
      'r1',
      0,
    );
    const response = answer(context, reply(204, undefined));
    expect(response.status).toBe(204);
    expect(response.body).toBeUndefined();
    expect(response.headers).not.toHaveProperty('content-type');
    expect(response.headers['x-request-id']).toBe('r1');
  });
});
