import { validate } from '@readme/openapi-parser';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { createPetStore, NewPetSchema, PetSchema } from '../src/index.js';
import { arrayStorage } from './support/array-storage.js';

type Json = Record<string, unknown>;
const storeWith = (options: Partial<Parameters<typeof createPetStore>[0]> = {}) =>
  createPetStore({ storage: arrayStorage(), apiKeys: ['test-key-0123456789'], ...options });

// The linter dereferences in place: give it a copy.
const lint = (document: Readonly<Json>) =>
  validate(structuredClone(document) as Parameters<typeof validate>[0], {
    validate: { errors: { colorize: false } },
  });

describe('OpenAPI document', () => {
  it('passes @readme/openapi-parser validation with zero errors and zero warnings', async () => {
    const result = await lint(
      storeWith({
        servers: [
          { url: 'https://api.example.com/v1', description: 'Production' },
          { url: 'https://staging.example.com/v1', description: 'Staging' },
        ],
      }).openApiDocument,
    );
    expect(result.valid ? [] : result.errors).toEqual([]);
    expect(result.warnings).toEqual([]);
    expect(result.specification).toBe('OpenAPI');
  });

  it('still validates with the OpenAPI route switched off, and then omits it', async () => {
    const document = storeWith({ exposeOpenApi: false }).openApiDocument;
    expect(Object.keys(document.paths as Json)).not.toContain('/openapi.json');
    expect((await lint(document)).valid).toBe(true);
  });

  it('derives component schemas from the valibot schemas (one source of truth)', () => {
    const schemas = (storeWith().openApiDocument.components as Json).schemas as Record<
      string,
      Json
    >;
    expect(Object.keys(schemas.NewPet?.properties as Json)).toEqual(
      Object.keys(NewPetSchema.pipe[0].entries),
    );
    expect(schemas.NewPet?.required).toEqual(['name', 'categoryId']);
    expect(schemas.NewPet?.additionalProperties).toBe(false);
    expect(Object.keys(schemas.Pet?.properties as Json)).toEqual(
      Object.keys(PetSchema.pipe[0].entries),
    );
    expect(schemas.Pet?.required).toEqual(['id', 'name', 'categoryId', 'status']);
    const categoryId = (schemas.Pet?.properties as Record<string, Json> | undefined)?.categoryId;
    expect(categoryId).toMatchObject({
      type: 'integer',
      minimum: 1,
      maximum: Number.MAX_SAFE_INTEGER,
    });
  });

  it('documents limit from the same schema that validates it', () => {
    const document = storeWith().openApiDocument as {
      paths: Record<string, Record<string, { parameters: Json[] }>>;
    };
    const limit = document.paths['/pets']?.get?.parameters.find((p) => p.name === 'limit');
    expect(limit?.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 100, default: 20 });
    expect(v.is(NewPetSchema, { name: 'x', categoryId: 1 })).toBe(true);
  });
});

describe('what a reference page shows of the document', () => {
  const document = storeWith().openApiDocument as {
    paths: Record<string, Record<string, { summary: string }>>;
    components: { schemas: Record<string, Json & { properties?: Record<string, Json> }> };
  };
  const { schemas } = document.components;

  it('gives Pet a whole example that is a valid pet (a page would fill a nested status with null)', () => {
    const examples = schemas.Pet?.examples as unknown[] | undefined;
    expect(examples?.length).toBeGreaterThan(0);
    for (const example of examples ?? []) expect(v.is(PetSchema, example)).toBe(true);
  });

  it("gives name an example, so a NewPet built from the fields' examples is valid (not an empty name)", () => {
    const [name] = (schemas.NewPet?.properties?.name?.examples as unknown[] | undefined) ?? [];
    expect(v.is(NewPetSchema, { name, categoryId: 1 })).toBe(true);
  });

  it('summarises the document route by what it returns', () => {
    const summary = document.paths['/openapi.json']?.get?.summary ?? '';
    expect(summary).toMatch(/OpenAPI document/);
    expect(summary).not.toBe('This document.');
  });
});
