import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { inlineParameters, statementTimeout } from '../src/inline-sql.js';

describe('inlineParameters (statements sent as one simple-protocol message)', () => {
  it('writes integers, booleans and null as SQL, text through pg.escapeLiteral', () => {
    expect(
      inlineParameters('WHERE (status, id) > ($2::text, $1::bigint) LIMIT $3', [-5, 'sold', 21]),
    ).toBe("WHERE (status, id) > ('sold'::text, (-5)::bigint) LIMIT (21)");
    expect(inlineParameters('id = $1 OR id = $10', [7, 0, 0, 0, 0, 0, 0, 0, 0, 9])).toBe(
      'id = (7) OR id = (9)',
    );
    expect(inlineParameters('VALUES ($1, $2, $3, $4)', [true, false, null, undefined])).toBe(
      'VALUES (TRUE, FALSE, NULL, NULL)',
    );
    expect(inlineParameters('name = $1', ["O'Brien"])).toBe("name = 'O''Brien'");
    // pg puts a space before E, so the literal never runs into what precedes it.
    expect(inlineParameters('name = $1', ['back\\slash'])).toBe("name =  E'back\\\\slash'");
  });

  it('leaves a $N inside a quoted string or identifier of the statement alone', () => {
    expect(
      inlineParameters(`SELECT '$1 costs', "col$2", $1 FROM t WHERE x = 'it''s $2'`, [5, 6]),
    ).toBe(`SELECT '$1 costs', "col$2", (5) FROM t WHERE x = 'it''s $2'`);
  });

  it('never scans a literal again: a value holding $2 stays that text', () => {
    expect(inlineParameters('VALUES ($1, $2)', ['$2', 7])).toBe("VALUES ('$2', (7))");
  });

  it('refuses statement text it cannot read safely: E strings, dollar quoting, comments', () => {
    for (const text of [
      "x = E'a' AND y = $1",
      'x = $$a$$ AND y = $1',
      'y = $1 -- c',
      'y = $1 /* c */',
    ]) {
      expect(() => inlineParameters(text, [1])).toThrow(TypeError);
    }
  });

  it('refuses values it cannot write unchanged: NUL, lone surrogates, non-integers, objects', () => {
    for (const value of ['Re\u0000x', '\ud800', 1.5, 2 ** 53, Number.NaN, 10n, {}, new Date(0)]) {
      expect(() => inlineParameters('x = $1', [value])).toThrow(TypeError);
    }
    expect(() => inlineParameters('x = $2', [1])).toThrow('parameter $2 has no value (1 given)');
  });

  it('any well-formed text without NUL becomes one quoted literal, whatever it holds', () => {
    const text = fc
      .string({ unit: 'grapheme', maxLength: 200 })
      .filter((value) => !value.includes('\u0000'));
    fc.assert(
      fc.property(text, (value) => {
        const sql = inlineParameters('SELECT $1', [value]);
        // One literal: E'' or '' around the text, every quote inside doubled.
        const match = /^SELECT ( E)?'(.*)'$/s.exec(sql);
        expect(match).not.toBeNull();
        const body = match?.[2] ?? '';
        expect(body.replaceAll("''", '')).not.toContain("'");
        const unescaped = match?.[1] === ' E' ? body.replaceAll('\\\\', '\\') : body;
        expect(unescaped.replaceAll("''", "'")).toBe(value);
      }),
      { numRuns: 2000 },
    );
  });

  it('sets only positive integer timeouts', () => {
    expect(statementTimeout(5000)).toBe('SET LOCAL statement_timeout = 5000');
    expect(() => statementTimeout(0)).toThrow(TypeError);
    expect(() => statementTimeout(1.5)).toThrow(TypeError);
  });
});
