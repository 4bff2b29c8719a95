import { describe, expect, it } from 'vitest';
import { inlineParameters, statementTimeout } from '../src/inline-sql.js';

describe('inlineParameters (reads sent as one simple-protocol message)', () => {
  it('writes safe integers and status words as literals', () => {
    expect(
      inlineParameters('WHERE (status, id) > ($2::text, $1::bigint) LIMIT $3', [-5, 'sold', 21]),
    ).toBe("WHERE (status, id) > ('sold'::text, (-5)::bigint) LIMIT (21)");
    expect(inlineParameters('id = $1 OR id = $10', [7, 0, 0, 0, 0, 0, 0, 0, 0, 9])).toBe(
      'id = (7) OR id = (9)',
    );
  });

  it('refuses anything that would need quoting or could change the statement', () => {
    for (const value of [
      "sold' OR '1'='1",
      'Sold',
      'sold;',
      '',
      1.5,
      2 ** 53,
      Number.NaN,
      null,
      undefined,
      10n,
      true,
      {},
    ]) {
      expect(() => inlineParameters('x = $1', [value])).toThrow(TypeError);
    }
    expect(() => inlineParameters('x = $2', [1])).toThrow('parameter $2 has no value (1 given)');
  });

  it('sets only positive integer timeouts', () => {
    expect(statementTimeout(5000)).toBe('SET LOCAL statement_timeout = 5000');
    expect(() => statementTimeout(0)).toThrow(TypeError);
    expect(() => statementTimeout(1.5)).toThrow(TypeError);
  });
});
