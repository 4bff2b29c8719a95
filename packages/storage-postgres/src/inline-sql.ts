import pg from 'pg';

/**
 * Parameters spliced into a statement's text, for the simple query protocol: that protocol
 * takes several statements in one message (`BEGIN; SET LOCAL statement_timeout = …; INSERT …`,
 * one round trip) but no bind parameters. Integers are written as digits, text through pg's own
 * `escapeLiteral` (quotes doubled, backslashes doubled under `E''`: right whatever
 * `standard_conforming_strings` says). Text PostgreSQL could not store unchanged, with NUL or
 * a lone surrogate, throws: the message is a C string, and a NUL would end it early.
 */
function literal(value: unknown, index: number): string {
  if (typeof value === 'number' && Number.isSafeInteger(value)) {
    // Parenthesised, so `-1::bigint` cannot be read as `-(1::bigint)` or meet a preceding `-`.
    return `(${String(value)})`;
  }
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  // As pg does with a bind parameter: undefined is NULL.
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'string') {
    if (value.includes('\u0000') || !value.isWellFormed()) {
      throw new TypeError(`parameter $${index} holds NUL or a lone surrogate`);
    }
    return pg.escapeLiteral(value);
  }
  throw new TypeError(
    `parameter $${index} must be a safe integer, a boolean, null, undefined or text`,
  );
}

/**
 * `$N` outside quotes, or a quoted part kept as it is: `'…'` with `''` inside, `"…"` with `""`.
 * Anything this scanner cannot read safely (E'' strings, dollar quoting, comments) is refused.
 */
const TOKEN = /'(?:[^']|'')*'|"(?:[^"]|"")*"|\$(\d+)|[eE]'|\$\w*\$|--|\/\*/g;

/** A statement split once: its text between parameters, and the parameter numbers. */
type Template = readonly (string | number)[];

function compile(text: string): Template {
  const parts: (string | number)[] = [];
  let from = 0;
  for (const match of text.matchAll(TOKEN)) {
    const [token, digits] = match;
    if (digits === undefined) {
      if (token.length > 1 && (token.startsWith("'") || token.startsWith('"'))) continue;
      throw new TypeError(`cannot inline parameters around ${token} in: ${text}`);
    }
    parts.push(text.slice(from, match.index), Number(digits));
    from = match.index + token.length;
  }
  parts.push(text.slice(from));
  return parts;
}

// The package's statements are a handful of fixed texts: each is split once, not per call.
const templates = new Map<string, Template>();
const MAX_TEMPLATES = 256;

/**
 * `text` with `$1`, `$2`, … replaced by the literals of `values`. `text` is this package's own
 * SQL; a `$N` inside one of its quoted strings stays text. The literals are never scanned again.
 */
export function inlineParameters(text: string, values: readonly unknown[]): string {
  let template = templates.get(text);
  if (template === undefined) {
    template = compile(text);
    if (templates.size < MAX_TEMPLATES) templates.set(text, template);
  }
  let sql = '';
  for (const part of template) {
    if (typeof part === 'string') sql += part;
    else if (part < 1 || part > values.length) {
      throw new TypeError(`parameter $${part} has no value (${values.length} given)`);
    } else sql += literal(values[part - 1], part);
  }
  return sql;
}

/** `SET LOCAL statement_timeout = …` for a timeout already checked to be a positive integer. */
export const statementTimeout = (millis: number): string => {
  if (!Number.isSafeInteger(millis) || millis < 1) throw new TypeError(`bad timeout ${millis}`);
  return `SET LOCAL statement_timeout = ${millis}`;
};
