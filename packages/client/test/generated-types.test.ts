import { readFile } from 'node:fs/promises';
import { expect, it } from 'vitest';
import { GENERATED_FILE, generatedTypes, servedDocument } from '../scripts/generate.js';

it('the checked-in types are exactly what openapi-typescript makes of the served document', async () => {
  const checkedIn = await readFile(GENERATED_FILE, 'utf8');
  // On failure: `pnpm --filter @petstore/client generate`, and review the diff.
  expect(checkedIn).toBe(await generatedTypes());
});

it('notices a change in the document (a new field on Pet)', async () => {
  const document = await servedDocument();
  const schemas = document.components?.schemas as Record<string, { properties: object }>;
  const pet = schemas.Pet;
  if (pet === undefined) throw new Error('no Pet schema');
  pet.properties = { ...pet.properties, nickname: { type: 'string' } };
  const checkedIn = await readFile(GENERATED_FILE, 'utf8');
  const changed = await generatedTypes(document);
  expect(changed).toContain('nickname?: string;');
  expect(changed).not.toBe(checkedIn);
});
