import * as v from 'valibot';
import { apiError } from '../errors.js';
import type { ResolvedOptions } from '../options.js';
import { IdParamSchema } from '../query.js';
import { RULES } from '../schemas.js';
import { invalidValue } from '../validation.js';
import { type Handler, reply } from './context.js';
import { presentPet } from './present.js';

/** RFC 9745 `Deprecation`, RFC 8594 `Sunset`, and the successor link. */
export const deprecationHeaders = (
  options: ResolvedOptions,
  basePath: string,
): Record<string, string> => ({
  deprecation: `@${Math.floor(options.deprecatedAt.getTime() / 1000)}`,
  sunset: options.sunsetAt.toUTCString(),
  link: `<${basePath}/pets>; rel="successor-version"`,
});

/** Deprecated: the route table adds `deprecationHeaders` to every answer of this operation. */
export const getPet: Handler = async ({ pathParams, options }) => {
  const id = v.safeParse(IdParamSchema, pathParams[0]);
  if (!id.success) return invalidValue('path', 'petId', RULES.id);
  const pet = await options.storage.getPet(id.output);
  return pet === undefined
    ? apiError('not_found', `No pet with id ${id.output}.`)
    : reply(200, presentPet(pet));
};
