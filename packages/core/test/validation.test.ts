import type * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { validateBody } from '../src/input/validation.js';
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
