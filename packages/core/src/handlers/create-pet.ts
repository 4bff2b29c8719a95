import { readJsonBody } from '../body.js';
import { isApiError } from '../errors.js';
import { NewPetSchema } from '../schemas.js';
import { validate } from '../validation.js';
import { type Handler, reply } from './context.js';
import { presentPet } from './present.js';

export const createPet: Handler = async ({ request, options, basePath }) => {
  const body = await readJsonBody(request.headers, request.body, options.maxBodyBytes);
  if (isApiError(body)) return body;
  const input = validate(NewPetSchema, body.value, 'pet');
  if (isApiError(input)) return input;

  const { name, categoryId, status = options.defaultStatus } = input.ok;
  const pet = presentPet(await options.storage.createPet({ name, categoryId, status }));
  return reply(201, pet, { location: `${basePath}/pets/${pet.id}` });
};
