/**
 * JSON.parse turns `1.0000000000000001` into `1` and `9007199254740993` into
 * `9007199254740992` without a word. This finds the number literals in a JSON
 * text whose parsed value is an integer that differs from the exact decimal
 * the client wrote, so such input can be refused instead of rounded.
 */

/** A fraction, an exponent or 16 digits in a row: only those can round (made once, not per call). */
const MAY_ROUND = /\d[.eE]|\d{16}/;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const isDigit = (code: number): boolean => code >= 0x30 && code <= 0x39;
/** What may follow a literal's first character: digits, `.`, `e`, `E`, `+`, `-`. */
const inLiteral = (code: number): boolean =>
  isDigit(code) ||
  code === 0x2e ||
  code === 0x65 ||
  code === 0x45 ||
  code === 0x2b ||
  code === 0x2d;

/**
 * What the body's top level holds a rounded literal under: a property name, or `''` for the
 * root itself. One pass over the text (already accepted by JSON.parse), char by char: only a
 * literal with a fraction, an exponent or 16 digits is looked at, in time linear in its length.
 */
export function findRoundedNumbers(text: string): string[] {
  // Fast path: most bodies have no fraction or exponent and only small integers. In JSON a
  // fraction's `.` and an exponent's `e` always follow a digit, so the `e` of "name" does not count.
  if (!MAY_ROUND.test(text)) return [];
  const found = new Set<string>();
  let depth = 0;
  let lastString = { start: 0, end: 0, escaped: false };
  let key = '';
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      const start = i;
      let escaped = false;
      for (i++; text.charCodeAt(i) !== QUOTE; i++) {
        if (text.charCodeAt(i) === BACKSLASH) {
          escaped = true;
          i++;
        }
      }
      lastString = { start, end: i + 1, escaped };
    } else if (code === 0x7b || code === 0x5b) depth++;
    else if (code === 0x7d || code === 0x5d) depth--;
    else if (code === 0x3a) {
      // A string before `:` is a key; only the top level's are reported.
      if (depth === 1) key = keyOf(text, lastString);
    } else if (code === 0x2d || isDigit(code)) {
      const start = i;
      let plain = true;
      while (i + 1 < text.length && inLiteral(text.charCodeAt(i + 1))) {
        i++;
        if (!isDigit(text.charCodeAt(i))) plain = false;
      }
      const literal = text.slice(start, i + 1);
      if ((!plain || literal.length >= 16) && !isExact(literal)) {
        found.add(depth === 0 ? '' : key);
      }
    }
  }
  return [...found];
}

function keyOf(text: string, string: { start: number; end: number; escaped: boolean }): string {
  const quoted = text.slice(string.start, string.end);
  return string.escaped ? (JSON.parse(quoted) as string) : quoted.slice(1, -1);
}

/**
 * Whether JSON.parse gave the literal's exact value, where that matters: when it gave a safe
 * integer (an id or a categoryId), which a fraction or a 17th digit may have been rounded onto.
 * Other values fail validation whatever they were rounded to. Done on the digits as text, in
 * time linear in the literal (no BigInt arithmetic: a body of `1e308`s costs what any body does).
 */
function isExact(literal: string): boolean {
  const value = Number(literal);
  if (!Number.isSafeInteger(value)) return true;
  const e = literal.search(/[eE]/);
  const mantissa = e === -1 ? literal : literal.slice(0, e);
  const exponent = e === -1 ? 0 : Number(literal.slice(e + 1));
  const dot = mantissa.indexOf('.');
  const unsigned = mantissa.charCodeAt(0) === 45 /* - */ ? mantissa.slice(1) : mantissa;
  const digits = dot === -1 ? unsigned : unsigned.replace('.', '');
  const fractionLength = dot === -1 ? 0 : unsigned.length - unsigned.indexOf('.') - 1;
  // The literal is digits × 10^shift; as an integer, the digits of |value|.
  const shift = exponent - fractionLength;
  const expected = String(Math.abs(value));
  if (shift >= 0) return exactInteger(digits, shift, expected);
  // Dividing by 10^-shift leaves an integer only if that many trailing digits are zeros.
  const cut = digits.length + shift;
  if (cut < 0) return /^0*$/.test(digits) && value === 0;
  if (!/^0*$/.test(digits.slice(cut))) return false;
  return exactInteger(digits.slice(0, cut), 0, expected);
}

/** Whether `digits` followed by `zeros` zeros is the integer `expected` (no leading zeros). */
function exactInteger(digits: string, zeros: number, expected: string): boolean {
  const start = digits.search(/[1-9]/);
  if (start === -1) return expected === '0';
  const significant = digits.length - start;
  // A safe integer has at most 16 digits: longer can only be another number.
  if (significant + zeros !== expected.length) return false;
  return expected === digits.slice(start) + '0'.repeat(zeros);
}
