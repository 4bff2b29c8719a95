import { createPetStore, type PetStoreRequest } from '@petstore/core';
import { createMemoryStorage } from '@petstore/storage-memory';
import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

// Schemathesis's positive and negative idea, from the served document: every value the document
// allows is accepted, and every value it refuses is refused (400). One oracle decides which is
// which: the document's own schema, read by a JSON Schema validator; the values come from
// fast-check, biased to the edges the schemas draw (lengths, bounds, enums, NUL, fractions).

const KEY = 'document-agreement-key-01';
// Thousands of requests awaited in one loop over memory never let the event loop turn: no load
// shedding here (the core README, "Load shedding").
const store = createPetStore({
  storage: createMemoryStorage(),
  apiKeys: [KEY],
  loadShedding: false,
});
type Json = Record<string, unknown>;
const document = store.openApiDocument as Json;
const ajv = new Ajv2020({ strict: false, validateFormats: false });
ajv.addSchema(document, 'openapi.json');
const components = document.components as { parameters: Record<string, { schema: Json }> };

const validator = (pointer: string) => {
  const validate = ajv.getSchema(`openapi.json#${pointer}`);
  if (validate === undefined) throw new Error(`no schema at ${pointer}`);
  return (value: unknown) => validate(value) === true;
};
const parameterSchema = (name: string) => {
  const validate = ajv.compile(components.parameters[name]?.schema ?? {});
  return (value: unknown) => validate(value) === true;
};
/** A listPets parameter's schema, by its place in the document (its refs resolve there). */
const listParameter = (name: string) => {
  const pets = (document.paths as Record<string, Record<string, Json>>)['/pets']?.get;
  const parameters = (pets?.parameters ?? []) as Array<{ name?: string }>;
  const index = parameters.findIndex((parameter) => parameter.name === name);
  if (index === -1) throw new Error(`listPets has no ${name} parameter`);
  return validator(`/paths/~1pets/get/parameters/${index}/schema`);
};

const NUL = '\u0000';
/** Well-formed Unicode text (a lone surrogate is no JSON Schema string), NUL now and then. */
const text = (maxLength: number) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.string({ unit: 'binary', maxLength }) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength }).map((s) => `${s}${NUL}`) },
    {
      weight: 1,
      arbitrary: fc.constantFrom('', 'Rex', 'x'.repeat(256), 'x'.repeat(257), '😺'.repeat(256)),
    },
  );
const integer = fc.oneof(
  fc.constantFrom(0, 1, 2, -1, 9007199254740991, 9007199254740992, 1.5, 100, 101),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);
const anyJson = fc.oneof(text(10), integer, fc.boolean(), fc.constant(null), fc.constant([]));

const newPet = fc.record(
  {
    name: fc.oneof({ weight: 5, arbitrary: text(300) }, { weight: 1, arbitrary: anyJson }),
    categoryId: fc.oneof({ weight: 5, arbitrary: integer }, { weight: 1, arbitrary: anyJson }),
    status: fc.oneof(
      { weight: 5, arbitrary: fc.constantFrom('available', 'pending', 'sold') },
      { weight: 1, arbitrary: fc.constantFrom('Available', 'gone', '') },
      { weight: 1, arbitrary: anyJson },
    ),
    id: integer,
    extra: anyJson,
  },
  { requiredKeys: [] },
);

const post = (body: string, headers: Record<string, string> = {}): PetStoreRequest => ({
  method: 'POST',
  path: '/pets',
  headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', ...headers },
  body,
  publicPath: '/v1',
});
const list = (query: string, headers: Record<string, string> = {}): PetStoreRequest => ({
  method: 'GET',
  path: '/pets',
  query,
  headers: { authorization: `Bearer ${KEY}`, ...headers },
  publicPath: '/v1',
});

const RUNS = { numRuns: 1_000, seed: 20261126 };

describe('the served document describes exactly what the service accepts', () => {
  it('NewPet: a body the schema allows is created (201); one it refuses is a 400', async () => {
    const allowed = validator('/components/schemas/NewPet');
    await fc.assert(
      fc.asyncProperty(newPet, async (pet) => {
        const answer = await store.handle(post(JSON.stringify(pet)));
        expect(answer.status, JSON.stringify(pet)).toBe(allowed(pet) ? 201 : 400);
      }),
      RUNS,
    );
  });

  it('listPets: limit and status the document allows list (200); others are a 400', async () => {
    const limitAllowed = listParameter('limit');
    const statusAllowed = listParameter('status');
    const limit = fc.oneof(fc.integer({ min: -5, max: 120 }), fc.integer());
    const status = fc.oneof(
      fc.constantFrom('available', 'pending', 'sold'),
      fc.string({ unit: 'grapheme-ascii', maxLength: 8 }),
    );
    await fc.assert(
      fc.asyncProperty(limit, status, async (n, s) => {
        const query = `limit=${n}&status=${encodeURIComponent(s)}`;
        const answer = await store.handle(list(query));
        expect(answer.status, query).toBe(limitAllowed(n) && statusAllowed(s) ? 200 : 400);
      }),
      RUNS,
    );
  });

  it('Idempotency-Key: a key the document allows is taken; others are a 400', async () => {
    const allowed = parameterSchema('IdempotencyKey');
    const key = fc.oneof(
      fc.string({ unit: 'grapheme-ascii', minLength: 0, maxLength: 260 }),
      fc.string({ unit: fc.constantFrom('a', ' ', '\t', 'é', '~'), maxLength: 4 }),
      fc.constantFrom('k'.repeat(255), 'k'.repeat(256)),
    );
    await fc.assert(
      fc.asyncProperty(key, async (k) => {
        const answer = await store.handle(
          post('{"name":"Rex","categoryId":1}', { 'idempotency-key': k }),
        );
        expect(answer.status, JSON.stringify(k)).toBe(allowed(k) ? 201 : 400);
      }),
      { ...RUNS, numRuns: 300 },
    );
  });

  it('X-Request-Id: every value the document allows (any string) is taken, never refused', async () => {
    const allowed = parameterSchema('RequestId');
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'grapheme-ascii', maxLength: 200 }), async (id) => {
        expect(allowed(id)).toBe(true);
        const answer = await store.handle(list('limit=1', { 'x-request-id': id }));
        expect(answer.status, JSON.stringify(id)).toBe(200);
      }),
      { ...RUNS, numRuns: 300 },
    );
  });
});
