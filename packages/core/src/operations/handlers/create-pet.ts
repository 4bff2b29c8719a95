import type { Principal } from '../../auth/auth.js';
import { type ApiError, apiError, isApiError } from '../../http/errors.js';
import { type ParsedJson, readJsonBody } from '../../input/body.js';
import { isPlainNewPet } from '../../input/new-pet-fast-path.js';
import { validateBody } from '../../input/validation.js';
import type { ResolvedOptions } from '../../options/options.js';
import type { NewPet, Pet, PetInput } from '../../schemas/schemas.js';
import { NewPetSchema } from '../../schemas/schemas.js';
import { fingerprint, idempotencyKey } from '../../storage/idempotency.js';
import { claimScopes } from '../../storage/scope.js';
import { type HandlerResult, type RequestContext, reply } from '../context.js';
import { presentPet } from './present.js';

const created = (pet: Pet, publicPath: string, replayed: boolean): HandlerResult => {
  const shown = presentPet(pet);
  const location = `${publicPath}/pets/${shown.id}`;
  return reply(201, shown, replayed ? { location, 'idempotent-replayed': 'true' } : { location });
};

/** Not async: a refused request answers at once, and a create waits only on the storage. */
export const createPet = (context: RequestContext): HandlerResult | Promise<HandlerResult> => {
  const { request, options } = context;
  const key = idempotencyKey(request.headers);
  if (isApiError(key)) return key;
  const body = readJsonBody(request.headers, request.body, options.maxBodyBytes);
  if (!(body instanceof Promise)) return store(body, key, context);
  // Waiting on the client is not work in flight: its place is given up meanwhile.
  const read = context.inFlight === undefined ? body : context.inFlight.waitOutside(body);
  return read.then((parsed) => store(parsed, key, context));
};

function store(
  body: ParsedJson | ApiError,
  key: string | undefined,
  { options, publicPath, principal }: RequestContext,
): HandlerResult | Promise<HandlerResult> {
  if (isApiError(body)) return body;
  let input: NewPet;
  if (body.rounded.length === 0 && isPlainNewPet(body.value)) input = body.value;
  else {
    const checked = validateBody(NewPetSchema, body.value, 'pet', body.rounded);
    if (isApiError(checked)) return checked;
    input = checked.ok;
  }

  const { name, categoryId, status = options.defaultStatus } = input;
  const pet: PetInput = { name, categoryId, status };
  if (key === undefined || principal === undefined) {
    // Promise.resolve: a storage may answer with any thenable, as `await` would take it.
    return Promise.resolve(options.storage.createPet(pet)).then((stored) =>
      created(stored, publicPath, false),
    );
  }
  return storeOnce(pet, input, key, principal, options, publicPath);
}

/** The create under an Idempotency-Key: at most one pet per key and principal. */
async function storeOnce(
  pet: PetInput,
  input: NewPet,
  key: string,
  principal: Principal,
  options: ResolvedOptions,
  publicPath: string,
): Promise<HandlerResult> {
  const scopes = claimScopes(principal, options.idempotencyScopes);
  const claim = {
    ...(scopes instanceof Promise ? await scopes : scopes),
    key,
    fingerprint: fingerprint(input),
    retentionMs: options.idempotencyRetentionMs,
  };
  const outcome = await options.storage.createPetIdempotent(pet, claim);
  switch (outcome.kind) {
    case 'created':
      return created(outcome.pet, publicPath, false);
    case 'replayed':
      return created(outcome.pet, publicPath, true);
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
}
