import type * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { isApiError } from '../src/http/errors.js';
import { invalidInput, validateBody } from '../src/input/validation.js';
import { NewPetSchema } from '../src/schemas/schemas.js';

type Node = v.GenericSchema & {
  readonly message?: unknown;
  readonly wrapped?: Node;
  readonly pipe?: readonly {
    readonly kind: string;
    readonly type: string;
    readonly message?: unknown;
  }[];
};

/** Every schema and check a value passes through, with what it says when it fails. */
function checksOf(schema: Node, at: string): { at: string; message: unknown }[] {
  if (schema.wrapped !== undefined) return checksOf(schema.wrapped, at);
  const own = { at: `${at} (${schema.type})`, message: schema.message };
  const actions = (schema.pipe ?? [])
    .filter((item) => item.kind === 'validation')
    .map((item) => ({ at: `${at} ${item.type}`, message: item.message }));
  return [own, ...actions];
}

describe('NewPet validation messages', () => {
  it('every check of every field carries our own message, so valibot never words one', () => {
    const checks = Object.entries(NewPetSchema.entries).flatMap(([field, schema]) =>
      checksOf(schema as Node, field),
    );
    expect(checks.length).toBeGreaterThanOrEqual(9);
    for (const { at, message } of checks) {
      expect(typeof message, `${at} has its own message`).toBe('string');
      expect(message as string, at).toMatch(/^must be /);
    }
  });

  it('words each problem without valibot, whatever the value', () => {
    const values: unknown[] = [
      undefined,
      null,
      0,
      1.5,
      -1,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      '',
      'x',
      [],
      [1],
      {},
      { a: 1 },
      true,
      false,
      'a'.repeat(300),
      '\u0000',
    ];
    for (const name of values) {
      for (const categoryId of values) {
        for (const status of values) {
          const body: Record<string, unknown> = { extra: 1 };
          if (name !== undefined) body.name = name;
          if (categoryId !== undefined) body.categoryId = categoryId;
          if (status !== undefined) body.status = status;
          const result = validateBody(NewPetSchema, body, 'pet');
          const text = JSON.stringify(result);
          expect(text).not.toMatch(/Invalid (type|key|length|value)|Expected|Received|but r/);
          expect(result).toMatchObject({ code: 'invalid_request' });
          const details = 'details' in result ? (result.details ?? []) : [];
          for (const detail of details) expect(detail.message.startsWith(detail.path)).toBe(true);
          expect(details.at(-1)).toEqual({ path: 'extra', message: 'extra is not allowed' });
        }
      }
    }
  });
});

describe('at most 20 problems named (the contract, Errors)', () => {
  const unknownKeys = (count: number) =>
    Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, 1]));
  /** The 400 a body gets, its details always a list. */
  const refusal = (body: object, rounded?: string[]) => {
    const result = validateBody(NewPetSchema, body, 'pet', rounded);
    if (!isApiError(result)) throw new Error('expected a 400');
    expect(result.code).toBe('invalid_request');
    return { message: result.message, details: result.details ?? [] };
  };

  it('100,000 unknown keys and a missing name: the first 20 in order, the message counting all', () => {
    const { details, message } = refusal({ categoryId: 1, ...unknownKeys(100_000) });
    expect(details).toHaveLength(20);
    expect(details[0]).toEqual({ path: 'name', message: 'name is required' });
    expect(details.slice(1).map((detail) => detail.path)).toEqual(
      Array.from({ length: 19 }, (_, i) => `k${i}`),
    );
    expect(message).toMatch(/^Invalid pet: 100001 problems, the first 20: name is required; k0 /);
    expect(message.endsWith('k18 is not allowed.')).toBe(true);
  });

  it('20 problems: all named, the plain message; 21: 20 named, 21 counted', () => {
    const twenty = refusal({ name: 'Rex', categoryId: 1, ...unknownKeys(20) });
    expect(twenty.details).toHaveLength(20);
    expect(twenty.message).toMatch(/^Invalid pet: k0 is not allowed; /);
    const more = refusal({ name: 'Rex', categoryId: 1, ...unknownKeys(21) });
    expect(more.details).toHaveLength(20);
    expect(more.message).toMatch(/^Invalid pet: 21 problems, the first 20: k0 /);
  });

  it('a rounded literal under a field still counts against it, among many unknown keys', () => {
    const { details, message } = refusal({ name: 'Rex', categoryId: 1, ...unknownKeys(30) }, [
      'categoryId',
      'k3',
    ]);
    expect(details[0]?.path).toBe('categoryId');
    expect(details).toHaveLength(20);
    expect(message).toMatch(/^Invalid pet: 31 problems, the first 20: categoryId must be/);
  });

  it('invalidInput names 20 at most, whatever it is given', () => {
    const many = Array.from({ length: 25 }, (_, i) => ({
      path: `p${i}`,
      message: `p${i} is wrong`,
    }));
    const error = invalidInput('query', many);
    expect(error.details).toHaveLength(20);
    expect(error.message).toMatch(/^Invalid query: 25 problems, the first 20: p0 is wrong;/);
  });
});
