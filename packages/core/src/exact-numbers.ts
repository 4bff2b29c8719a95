/**
 * JSON.parse turns `1.0000000000000001` into `1` and `9007199254740993` into
 * `9007199254740992` without a word. This finds the first number literal in a
 * JSON text whose parsed value is an integer that differs from the exact
 * decimal the client wrote, so such input can be refused instead of rounded.
 */
const NUMBER = /"(?:[^"\\]|\\.)*"|(-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)/g;

export function findInexactNumber(text: string): string | undefined {
  // Fast path: most bodies have no fraction or exponent and only small integers. In JSON a
  // fraction's `.` and an exponent's `e` always follow a digit, so the `e` of "name" does not count.
  if (!/\d[.eE]|\d{16}/.test(text)) return undefined;
  for (const match of text.matchAll(NUMBER)) {
    const literal = match[1];
    if (literal !== undefined && !isExact(literal)) return literal;
  }
  return undefined;
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
