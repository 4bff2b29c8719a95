import * as v from 'valibot';
import { apiError } from '../errors.js';
import { IdParamSchema } from '../query.js';
import { RULES } from '../schemas.js';
import { invalidValue } from '../validation.js';
import { type Handler, reply } from './context.js';
import { presentPet } from './present.js';

/** Deprecated: the operation table adds the deprecation headers to every answer of it. */
export const getPet: Handler = async ({ pathParams, options }) => {
  const id = v.safeParse(IdParamSchema, pathParams[0]);
  if (!id.success) return invalidValue('path', 'petId', RULES.id);
  const pet = await options.storage.getPet(id.output);
  return pet === undefined
    ? apiError('not_found', `No pet with id ${id.output}.`)
    : reply(200, presentPet(pet));
};
