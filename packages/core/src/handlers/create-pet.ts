import { readJsonBody } from '../body.js';
import { apiError, isApiError } from '../errors.js';
import { fingerprint, idempotencyKey } from '../idempotency.js';
import type { Pet, PetInput } from '../schemas.js';
import { isPlainNewPet, NewPetSchema } from '../schemas.js';
import { validateBody } from '../validation.js';
import { type Handler, type HandlerResult, reply } from './context.js';
import { presentPet } from './present.js';

const created = (pet: Pet, basePath: string, replayed: boolean): HandlerResult => {
  const shown = presentPet(pet);
  const location = `${basePath}/pets/${shown.id}`;
  return reply(201, shown, replayed ? { location, 'idempotent-replayed': 'true' } : { location });
};

export const createPet: Handler = async ({ request, options, basePath, principal }) => {
  const key = idempotencyKey(request.headers);
  if (isApiError(key)) return key;
  let body = readJsonBody(request.headers, request.body, options.maxBodyBytes);
  if (body instanceof Promise) body = await body;
  if (isApiError(body)) return body;
  const input =
    body.rounded.length === 0 && isPlainNewPet(body.value)
      ? { ok: body.value }
      : validateBody(NewPetSchema, body.value, 'pet', body.rounded);
  if (isApiError(input)) return input;

  const { name, categoryId, status = options.defaultStatus } = input.ok;
  const pet: PetInput = { name, categoryId, status };
  if (key === undefined || principal === undefined) {
    return created(await options.storage.createPet(pet), basePath, false);
  }

  const claim = {
    scope: principal.id,
    key,
    fingerprint: fingerprint(input.ok),
    retentionMs: options.idempotencyRetentionMs,
  };
  const outcome = await options.storage.createPetIdempotent(pet, claim);
  switch (outcome.kind) {
    case 'created':
      return created(outcome.pet, basePath, false);
    case 'replayed':
      return created(outcome.pet, basePath, true);
    case 'fingerprint_mismatch':
      return apiError(
        'idempotency_key_reused',
        'This Idempotency-Key was already used with a different body; use a new key for a new pet.',
      );
    case 'in_flight':
      return apiError(
        'idempotency_key_in_use',
        'A request with this Idempotency-Key is still being processed; retry shortly.',
        { headers: { 'retry-after': '1' } },
      );
  }
};
