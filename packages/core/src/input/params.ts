import * as v from 'valibot';
import {
  MAX_ID,
  type PetStatus,
  PetStatusSchema,
  RULES,
  type SchemaName,
} from '../schemas/schemas.js';
import { decodeCursor } from './cursor.js';

/**
 * A parameter of an operation, defined once: the operation table lists it, the
 * OpenAPI document shows `schema`, and every request is read with `parse`,
 * which is compiled from the same definition (a regular expression and a
 * range, not valibot's pipeline per request; test/params.test.ts holds the
 * two to the same answers).
 */
export interface Parameter<TName extends string = string, TValue = unknown> {
  readonly name: TName;
  readonly in: 'query' | 'path';
  readonly description?: string;
  /** What the document shows: a valibot schema of the text, or a component. */
  readonly schema: v.GenericSchema | SchemaName;
  /** What a value must be, in words (the name goes in front): `must be an integer from 1 to 100`. */
  readonly rule: string;
  /** The value of the text as sent (not decoded), or undefined when it breaks the rule. */
  readonly parse: (text: string) => TValue | undefined;
  /** The value when the parameter is absent (query parameters only). */
  readonly absent: TValue;
}

/** Any parameter, whatever its value type (for tables of them). */
// biome-ignore lint/suspicious/noExplicitAny: a table holds parameters of every value type.
export type AnyParameter = Parameter<string, any>;

/** The values of a list of parameters, by name: what a handler receives. */
export type ValuesOf<TParams extends readonly AnyParameter[]> = {
  readonly [P in TParams[number] as P['name']]: P extends Parameter<string, infer V> ? V : never;
};

interface IntegerRange {
  readonly min: number;
  readonly max: number;
  readonly description: string;
}

/**
 * A decimal integer in `[min, max]` with one spelling: no sign, no leading
 * zero, no exponent, no escape. `min` is at least 1, so the text starts 1-9.
 */
function integer<TName extends string, TAbsent extends number | undefined>(
  name: TName,
  where: 'query' | 'path',
  { min, max, description }: IntegerRange,
  absent: TAbsent,
  metadata: Record<string, unknown> = {},
): Parameter<TName, number | TAbsent> {
  const rule = `must be an integer from ${min} to ${max}`;
  const text = new RegExp(`^[1-9]\\d{0,${String(max).length - 1}}$`);
  const schema = v.pipe(
    v.string(),
    v.regex(text, rule),
    v.transform(Number),
    v.number(),
    v.integer(),
    v.minValue(min, rule),
    v.maxValue(max, rule),
    v.metadata(metadata),
    v.description(description),
  );
  const parse = (value: string): number | undefined => {
    if (!text.test(value)) return undefined;
    const parsed = Number(value);
    return parsed >= min && parsed <= max ? parsed : undefined;
  };
  return { name, in: where, description, schema, rule, parse, absent };
}

/** Page size: the one definition of `limit`'s range and default. */
const LIMIT = { min: 1, max: 100, default: 20 } as const;

export const limitParameter = integer(
  'limit',
  'query',
  { min: LIMIT.min, max: LIMIT.max, description: 'Maximum number of items returned.' },
  LIMIT.default,
  { default: LIMIT.default },
);

export const petIdParameter = integer(
  'petId',
  'path',
  { min: 1, max: MAX_ID, description: 'Identifier of the animal.' },
  undefined,
  { format: 'int64' },
);

const STATUSES: ReadonlySet<string> = new Set(PetStatusSchema.options);

export const statusParameter: Parameter<'status', PetStatus | undefined> = {
  name: 'status',
  in: 'query',
  description: 'Only animals with this availability status.',
  schema: 'PetStatus',
  rule: RULES.status,
  parse: (text) => (STATUSES.has(text) ? (text as PetStatus) : undefined),
  absent: undefined,
};

export const cursorParameter: Parameter<'cursor', number | undefined> = {
  name: 'cursor',
  in: 'query',
  description: 'Opaque cursor taken from the `Link: rel="next"` header of the previous page.',
  schema: v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]+$/)),
  rule: 'is not a cursor this service issued',
  parse: decodeCursor,
  absent: undefined,
};
