/**
 * JSON.parse turns `1.0000000000000001` into `1` and `9007199254740993` into
 * `9007199254740992` without a word. This finds the number literals in a JSON
 * text whose parsed value is an integer that differs from the exact decimal
 * the client wrote, so such input can be refused instead of rounded.
 */
const TOKEN = /"(?:[^"\\]|\\.)*"|(-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)|([{[])|([}\]])|(:)/g;

/** A fraction, an exponent or 16 digits in a row: only those can round (made once, not per call). */
const MAY_ROUND = /\d[.eE]|\d{16}/;

/** What the body's top level holds a rounded literal under: a property name, or `''` for the root itself. */
export function findRoundedNumbers(text: string): string[] {
  // Fast path: most bodies have no fraction or exponent and only small integers. In JSON a
  // fraction's `.` and an exponent's `e` always follow a digit, so the `e` of "name" does not count.
  if (!MAY_ROUND.test(text)) return [];
  const found: string[] = [];
  let depth = 0;
  let lastString = '';
  let key = '';
  for (const match of text.matchAll(TOKEN)) {
    const [token, literal, open, close, colon] = match;
    if (open !== undefined) depth++;
    else if (close !== undefined) depth--;
    else if (colon !== undefined) {
      // Only the text already passed JSON.parse, so a string before `:` is a key.
      if (depth === 1) key = JSON.parse(lastString) as string;
    } else if (literal !== undefined) {
      const where = depth === 0 ? '' : key;
      if (!isExact(literal) && !found.includes(where)) found.push(where);
    } else lastString = token;
  }
  return found;
}

function isExact(literal: string): boolean {
  const value = Number(literal);
  // Non-integers fail integer validation anyway; only silent rounding onto an integer matters.
  if (!Number.isInteger(value)) return true;
  const [mantissa = '', exponentText] = literal.toLowerCase().split('e');
  const negative = mantissa.startsWith('-');
  const [whole = '', fraction = ''] = mantissa.replace('-', '').split('.');
  let digits = BigInt(whole + fraction);
  let exponent = Number(exponentText ?? 0) - fraction.length;
  // Precision past the doubles' range is irrelevant: such values are rejected by range checks.
  if (Math.abs(exponent) > 400) return true;
  for (; exponent > 0; exponent--) digits *= 10n;
  for (; exponent < 0; exponent++) {
    if (digits % 10n !== 0n) return false;
    digits /= 10n;
  }
  return (negative ? -digits : digits) === BigInt(value);
}
