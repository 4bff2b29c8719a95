import type { FastifyReply } from 'fastify';

/** The contract's Error body: `{code, message, status}`, and `details` for invalid input. */
export interface Detail {
  readonly path: string;
  readonly message: string;
}

interface ErrorBody {
  readonly code: string;
  readonly message: string;
  readonly status: number;
  readonly details?: readonly Detail[];
}

/** An error answer: its body, and the headers it needs (`Allow`, `WWW-Authenticate`, `Retry-After`). */
export interface ErrorAnswer {
  readonly body: ErrorBody;
  readonly headers?: Readonly<Record<string, string>>;
}

/** For the places Fastify wants an Error (a body parser, a hook's `done`). */
export class PeerError extends Error {
  constructor(readonly answer: ErrorAnswer) {
    super(answer.body.message);
  }
}

export const apiError = (
  status: number,
  code: string,
  message: string,
  headers?: Readonly<Record<string, string>>,
): ErrorAnswer => {
  const body = { code, message, status };
  return headers === undefined ? { body } : { body, headers };
};

export const MAX_ID = Number.MAX_SAFE_INTEGER;
/** What each value must be, in the contract's words (the name goes in front). */
export const RULES = {
  name: 'must be a string of 1 to 256 characters',
  nameText: 'must be valid Unicode text without NUL characters',
  id: `must be an integer from 1 to ${MAX_ID}`,
  status: 'must be one of available, pending, sold',
  idempotencyKey: 'must be 1 to 255 visible ASCII characters',
  limit: 'must be an integer from 1 to 100',
  cursor: 'is not a cursor this service issued',
  once: 'must be given at most once',
  plain: 'must be sent as plain text, not percent-encoded',
} as const;

/** The contract names at most this many problems in a 400 (decisions.md, Errors). */
const MAX_DETAILS = 20;

/** One 400 for invalid input: `Invalid <where>: [<n> problems, the first 20: ]<detail>; ….` */
export function invalidInput(where: string, all: readonly Detail[]): ErrorAnswer {
  const details = all.slice(0, MAX_DETAILS);
  const count =
    all.length > details.length ? `${all.length} problems, the first ${details.length}: ` : '';
  const summary = details.map((detail) => detail.message).join('; ');
  const message = `Invalid ${where}: ${count}${summary}.`;
  return { body: { code: 'invalid_request', message, status: 400, details } };
}

export const problem = (name: string, rule: string): Detail => ({
  path: name,
  message: `${name} ${rule}`,
});

export const malformed = (message: string): ErrorAnswer => apiError(400, 'malformed_json', message);
export const notFound = (message: string): ErrorAnswer => apiError(404, 'not_found', message);
export const tooLarge = (maxBytes: number): ErrorAnswer =>
  apiError(413, 'payload_too_large', `The request body is larger than ${maxBytes} bytes.`);
export const unsupportedMedia = (message = 'Send the body as application/json.'): ErrorAnswer =>
  apiError(415, 'unsupported_media_type', message);
export const internalError = apiError(500, 'internal_error', 'Something went wrong on our side.');

export function sendError(reply: FastifyReply, answer: ErrorAnswer): void {
  if (answer.headers !== undefined) reply.headers(answer.headers);
  void reply.code(answer.body.status).send(answer.body);
}
