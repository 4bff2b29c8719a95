import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

// During a rolling deploy the old release still serves while the new one migrates: every
// migration only adds (docs/operations.md). Renames, drops and type or nullability changes
// would break the instances still running, so none may appear here. Dropping a foreign key only
// relaxes (an old release never relies on the check), so that one drop is allowed.
const DIR = fileURLToPath(new URL('../migrations', import.meta.url));
const FOREIGN_KEY_DROP = /\bDROP\s+CONSTRAINT\s+(IF\s+EXISTS\s+)?\w+_fkey\b/gi;
const BREAKING =
  /\b(DROP\s+(TABLE|COLUMN|INDEX|SCHEMA|CONSTRAINT)|RENAME\b|ALTER\s+COLUMN\s+\S+\s+(TYPE|SET\s+NOT\s+NULL)|TRUNCATE)\b/i;

it('every migration only adds: no drop (but of a foreign key), rename, type change or new NOT NULL on a column', () => {
  const files = readdirSync(DIR).filter((file) => file.endsWith('.sql'));
  expect(files.length).toBeGreaterThan(0);
  for (const file of files) {
    const sql = readFileSync(`${DIR}/${file}`, 'utf8')
      .replace(/--.*$/gm, '')
      .replace(FOREIGN_KEY_DROP, '');
    expect(BREAKING.exec(sql)?.[0], file).toBeUndefined();
  }
  // The rule catches what it names.
  expect(BREAKING.test('ALTER TABLE pets DROP COLUMN status')).toBe(true);
  expect(BREAKING.test('ALTER TABLE pets RENAME COLUMN name TO title')).toBe(true);
  expect(BREAKING.test('ALTER TABLE pets ALTER COLUMN name TYPE varchar(10)')).toBe(true);
  const relaxed = (sql: string): boolean => BREAKING.test(sql.replace(FOREIGN_KEY_DROP, ''));
  expect(relaxed('ALTER TABLE pets DROP CONSTRAINT pets_status_check')).toBe(true);
  expect(relaxed('ALTER TABLE claims DROP CONSTRAINT IF EXISTS claims_pet_id_fkey')).toBe(false);
});
