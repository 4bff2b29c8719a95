import pg, { type CustomTypesConfig } from 'pg';

/** OID of `int8` (`bigint`), the type of every id column. */
const INT8_OID = 20;

/**
 * Parses `int8` text to an exact number, refusing what a JavaScript number cannot hold exactly.
 * pg's default returns a string; `Number()` alone would silently round past 2^53 − 1.
 */
export function parseInt8(text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value)) {
    throw new RangeError(`int8 value ${text} is outside JavaScript's safe integer range`);
  }
  return value;
}

/**
 * Per-query type parsers (`types` on the query config): int8 as exact numbers, everything else
 * as pg's defaults. Per query, so a pool the host passes in keeps its own global parsers.
 */
export const int8Types: CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (oid === INT8_OID && format !== 'binary') return parseInt8;
    return format === 'binary'
      ? pg.types.getTypeParser(oid, 'binary')
      : pg.types.getTypeParser(oid);
  }) as CustomTypesConfig['getTypeParser'],
};
