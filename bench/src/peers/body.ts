import { hash } from 'node:crypto';
import { type Detail, MAX_ID, RULES } from './input.js';
import { PET_STATUSES, type PetStatus } from './store.js';

/** A NewPet body as sent: `status` undefined when omitted (the default is the peer's). */
export interface SentPet {
  readonly name: string;
  readonly categoryId: number;
  readonly status: PetStatus | undefined;
}

// Only a fraction, an exponent or 16 digits in a row can make JSON.parse round a number.
const MAY_ROUND = /\d[.eE]|\d{16}/;
const LITERAL = /^-?(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/**
 * Whether a number literal is exactly the safe integer JSON.parse made of it
 * (`1.0000000000000001` is not 1). On the digits as text, in linear time.
 */
function isExactInteger(source: string, value: number): boolean {
  const parts = LITERAL.exec(source);
  if (parts === null) return true;
  const fraction = parts[2] ?? '';
  const digits = (parts[1] ?? '') + fraction;
  let exponent = Number(parts[3] ?? '0') - fraction.length;
  let start = 0;
  while (start < digits.length && digits.charCodeAt(start) === 48) start++;
  let end = digits.length;
  while (end > start && digits.charCodeAt(end - 1) === 48) end--;
  if (start === end) return value === 0;
  exponent += digits.length - end;
  if (exponent < 0) return false; // a fraction is left
  const expected = String(Math.abs(value));
  return (
    end - start + exponent === expected.length &&
    expected === digits.slice(start, end) + '0'.repeat(exponent)
  );
}

type SourceReviver = (key: string, value: unknown, context?: { source?: string }) => unknown;
// JSON.parse hands revivers each primitive's source text (Node 22+); TypeScript's lib does not say so.
const parseWithSource = JSON.parse as (text: string, reviver: SourceReviver) => unknown;

/** A categoryId that JSON.parse rounded is no integer at all: NaN, which the check refuses. */
const unrounded: SourceReviver = (key, value, context) =>
  key === 'categoryId' &&
  typeof value === 'number' &&
  Number.isSafeInteger(value) &&
  context?.source !== undefined &&
  !isExactInteger(context.source, value)
    ? Number.NaN
    : value;

/** JSON.parse, never rounding a categoryId silently. Throws a SyntaxError on malformed JSON. */
export const parseBody = (text: string): unknown =>
  MAY_ROUND.test(text) ? parseWithSource(text, unrounded) : JSON.parse(text);

const STATUSES: ReadonlySet<unknown> = new Set(PET_STATUSES);

/** The name's problem, if any: 1 to 256 characters (code points), Unicode text, no NUL. */
function nameProblem(name: unknown): string | undefined {
  if (typeof name !== 'string' || name.length === 0) return RULES.name;
  // 256 UTF-16 units are at most 256 code points: only longer names need counting.
  if (name.length > 256) {
    let count = 0;
    for (const _ of name) count++;
    if (count > 256) return RULES.name;
  }
  return name.includes('\u0000') || !name.isWellFormed() ? RULES.nameText : undefined;
}

const isId = (value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= MAX_ID;

const required = (field: string): Detail => ({ path: field, message: `${field} is required` });
const broken = (field: string, rule: string): Detail => ({
  path: field,
  message: `${field} ${rule}`,
});

/** The contract names at most this many problems in a 400 (decisions.md, Errors). */
export const MAX_DETAILS = 20;

/** What is wrong with a body: the first `MAX_DETAILS` problems, and how many in all. */
export interface Problems {
  readonly details: Detail[];
  readonly total: number;
}

/**
 * The NewPet rules: every problem at once, fields in schema order (name, categoryId,
 * status), then unknown properties in body order; the first 20 named, the rest counted.
 */
export function checkNewPet(value: unknown): SentPet | Problems {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return {
      details: [{ path: '(body)', message: 'the request body must be a JSON object' }],
      total: 1,
    };
  }
  const body = value as Readonly<Record<string, unknown>>;
  const { name, categoryId, status } = body;
  const details: Detail[] = [];
  if (!Object.hasOwn(body, 'name')) details.push(required('name'));
  else {
    const problem = nameProblem(name);
    if (problem !== undefined) details.push(broken('name', problem));
  }
  if (!Object.hasOwn(body, 'categoryId')) details.push(required('categoryId'));
  else if (!isId(categoryId)) details.push(broken('categoryId', RULES.id));
  if (Object.hasOwn(body, 'status') && !STATUSES.has(status)) {
    details.push(broken('status', RULES.status));
  }
  let total = details.length;
  for (const key of Object.keys(body)) {
    if (key === 'name' || key === 'categoryId' || key === 'status') continue;
    total++;
    if (details.length < MAX_DETAILS) details.push({ path: key, message: `${key} is not allowed` });
  }
  if (total > 0) return { details, total };
  return {
    name: name as string,
    categoryId: categoryId as number,
    status: status as PetStatus | undefined,
  };
}

/** The body's meaning, not its bytes: key order and spacing make no other request. */
export const fingerprintOf = (pet: SentPet): string =>
  hash('sha256', JSON.stringify([pet.name, pet.categoryId, pet.status ?? null]), 'base64url');
