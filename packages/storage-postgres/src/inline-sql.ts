/**
 * A read's parameters spliced into its text, for the simple query protocol: that protocol takes
 * several statements in one message (`SET LOCAL statement_timeout = …; SELECT …`, one round
 * trip, one implicit transaction) but no bind parameters. Only values that need no quoting or
 * escaping are accepted: safe integers and lower-case words (the status constants). Anything
 * else is a bug in the caller and throws; free text always travels as a bind parameter.
 */
const WORD = /^[a-z_]{1,32}$/;

function literal(value: unknown, index: number): string {
  if (typeof value === 'number' && Number.isSafeInteger(value)) {
    // Parenthesised, so `-1::bigint` cannot be read as `-(1::bigint)` or meet a preceding `-`.
    return `(${String(value)})`;
  }
  if (typeof value === 'string' && WORD.test(value)) return `'${value}'`;
  throw new TypeError(`parameter $${index} of a read must be a safe integer or a status word`);
}

/** `text` with `$1`, `$2`, … replaced by the literals of `values`. */
export function inlineParameters(text: string, values: readonly unknown[]): string {
  return text.replace(/\$(\d+)/g, (_, digits: string) => {
    const index = Number(digits);
    if (index < 1 || index > values.length) {
      throw new TypeError(`parameter $${index} has no value (${values.length} given)`);
    }
    return literal(values[index - 1], index);
  });
}

/** `SET LOCAL statement_timeout = …` for a timeout already checked to be a positive integer. */
export const statementTimeout = (millis: number): string => {
  if (!Number.isSafeInteger(millis) || millis < 1) throw new TypeError(`bad timeout ${millis}`);
  return `SET LOCAL statement_timeout = ${millis}`;
};
