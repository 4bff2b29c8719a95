import { apiError } from '../../http/errors.js';
import { type RequestContext, reply } from '../context.js';
import { presentPet } from './present.js';

/** Deprecated: the operation table adds the deprecation headers to every answer of it. */
export async function getPet({ params, options }: RequestContext<{ readonly petId: number }>) {
  const pet = await options.storage.getPet(params.petId);
  return pet === undefined
    ? apiError('not_found', `No pet with id ${params.petId}.`)
    : reply(200, presentPet(pet));
}
