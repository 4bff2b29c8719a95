import { sha256 } from '../auth/sha256.js';
import type { ApiError } from '../http/errors.js';
import type { RequestHeaders } from '../http/messages.js';
import { invalidValue } from '../input/validation.js';
import type { NewPet } from '../schemas/schemas.js';

/** IETF httpapi idempotency-key draft: we take 1 to 255 visible ASCII characters. */
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** The Idempotency-Key header: absent, valid, or a 400. A repeated header arrives joined and fails. */
export function idempotencyKey(headers: RequestHeaders): string | undefined | ApiError {
  const raw = headers['idempotency-key'];
  if (raw === undefined) return undefined;
  const value = typeof raw === 'string' ? raw : raw.join(', ');
  if (KEY_PATTERN.test(value)) return value;
  return invalidValue('header', 'Idempotency-Key', 'must be 1 to 255 visible ASCII characters');
}

/** The body's meaning, not its bytes: key order and whitespace do not make a different request. */
export const fingerprint = (pet: NewPet): string =>
  sha256(JSON.stringify([pet.name, pet.categoryId, pet.status ?? null]), 'base64url');
