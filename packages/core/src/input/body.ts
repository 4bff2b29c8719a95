import { type ApiError, apiError } from '../http/errors.js';
import { firstHeader, isJsonContentType } from '../http/header-values.js';
import type { HostReadBody, RequestBody, RequestHeaders } from '../http/messages.js';
import { findRoundedNumbers } from './exact-numbers.js';

const tooLarge = (maxBytes: number): ApiError =>
  apiError('payload_too_large', `The request body is larger than ${maxBytes} bytes.`);

const malformed = (message: string): ApiError => apiError('malformed_json', message);

const isParsed = (
  body: object,
): body is { kind: 'parsed'; value: unknown; byteLength?: number | undefined } =>
  (body as { kind?: unknown }).kind === 'parsed';
const isUnreadable = (
  body: object,
): body is { kind: 'unreadable'; reason: 'malformed' | 'too_large' | 'aborted' } =>
  (body as { kind?: unknown }).kind === 'unreadable';
const isHostRead = (body: object): body is HostReadBody =>
  (body as { kind?: unknown }).kind === 'read';

/**
 * The request body stream failed: the client hung up (or its connection
 * broke) before sending it all. Nobody is left to answer, and it is not our
 * bug: the core ends the request quietly.
 */
export class ClientAbortedError extends Error {
  override readonly name = 'ClientAbortedError';
}

/**
 * Pulls chunks until the body ends or passes `maxBytes`. On overflow it stops
 * pulling and does not call `return()`: ending a Node request stream would
 * reset the socket before the 413 reaches the client; the host discards the rest.
 */
async function readLimited(
  stream: AsyncIterable<Uint8Array>,
  maxBytes: number,
): Promise<Uint8Array | ApiError> {
  const iterator = stream[Symbol.asyncIterator]();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    let next: IteratorResult<Uint8Array | string>;
    try {
      next = await iterator.next();
    } catch (cause) {
      throw new ClientAbortedError('the client went away while the body was read', { cause });
    }
    if (next.done === true) break;
    const chunk =
      typeof next.value === 'string' ? new TextEncoder().encode(next.value) : next.value;
    size += chunk.byteLength;
    if (size > maxBytes) return tooLarge(maxBytes);
    chunks.push(chunk);
  }
  return chunks.length === 1 && chunks[0] !== undefined ? chunks[0] : Buffer.concat(chunks, size);
}

const decoder = new TextDecoder('utf-8', { fatal: true });

/** A body read and parsed as JSON. */
export interface ParsedJson {
  readonly kind: 'json';
  readonly value: unknown;
  /** Top-level properties (`''`: the root) whose number literal JSON.parse rounded. */
  readonly rounded: readonly string[];
}

type Parsed = ParsedJson | ApiError;

const json = (value: unknown, rounded: readonly string[] = []): Parsed => ({
  kind: 'json',
  value,
  rounded,
});

function parseJsonText(bytes: Uint8Array | string): Parsed {
  let text: string;
  if (typeof bytes === 'string') text = bytes;
  else {
    try {
      text = decoder.decode(bytes);
    } catch {
      return malformed('The request body is not valid UTF-8.');
    }
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    // Only now: a body of whitespace alone never parses.
    if (text.trim() === '') return malformed('The request body is empty; send a JSON object.');
    return malformed(`The request body is not valid JSON: ${(error as Error).message}`);
  }
  // JSON.parse rounds silently; the contract says reject, never round: validation refuses these.
  return json(value, findRoundedNumbers(text));
}

/**
 * The parsed JSON value, or the error that stopped it: 415, 413 or 400. A
 * promise only when a stream must be read: a body the host already holds is
 * judged at once, without a trip through the microtask queue.
 */
export function readJsonBody(
  headers: RequestHeaders,
  body: RequestBody,
  maxBytes: number,
): Parsed | Promise<Parsed> {
  if (!isJsonContentType(headers)) {
    return apiError('unsupported_media_type', 'Send the body as application/json.');
  }
  // RFC 7694: a content coding we do not decode is a 415, before any byte is read.
  const encoding = firstHeader(headers['content-encoding'])?.trim().toLowerCase();
  if (encoding !== undefined && encoding !== '' && encoding !== 'identity') {
    return apiError(
      'unsupported_media_type',
      `Content-Encoding ${encoding} is not supported; send the body uncompressed.`,
    );
  }
  const declared = Number(firstHeader(headers['content-length']));
  if (declared > maxBytes) return tooLarge(maxBytes);

  if (body === undefined) return malformed('The request body is empty; send a JSON object.');
  if (typeof body === 'string' || body instanceof Uint8Array) {
    const size = typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
    return size > maxBytes ? tooLarge(maxBytes) : parseJsonText(body);
  }
  if (isHostRead(body)) {
    return body.read(maxBytes).then(
      (read) => (read === 'too_large' ? tooLarge(maxBytes) : parseJsonText(read)),
      (cause: unknown) => {
        throw new ClientAbortedError('the client went away while the body was read', { cause });
      },
    );
  }
  if (Symbol.asyncIterator in body) {
    return readLimited(body, maxBytes).then((bytes) =>
      bytes instanceof Uint8Array ? parseJsonText(bytes) : bytes,
    );
  }
  if (isUnreadable(body)) {
    if (body.reason === 'aborted') {
      return Promise.reject(new ClientAbortedError('the host saw the client go away'));
    }
    return body.reason === 'too_large'
      ? tooLarge(maxBytes)
      : malformed('The request body is not valid JSON.');
  }
  if (isParsed(body)) {
    // Without the wire size, the re-serialised size is the closest honest measure.
    const size = body.byteLength ?? Buffer.byteLength(JSON.stringify(body.value) ?? '');
    return size > maxBytes ? tooLarge(maxBytes) : json(body.value);
  }
  return malformed('The request body could not be read.');
}
