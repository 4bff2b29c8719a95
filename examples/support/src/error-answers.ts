import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import { type HostAnswer, jsonAnswer } from './host-routes.js';

/**
 * Error bodies for what the apps answer themselves, outside the core: the core's codes where it
 * has one (`invalid_request`, `not_found`), and codes for the statuses only the HTTP layer gives.
 */
export const HOST_ERRORS = {
  invalid_request: 400,
  request_timeout: 408,
  expectation_failed: 417,
  headers_too_large: 431,
} as const;

export type HostErrorCode = keyof typeof HOST_ERRORS;

/** The Error body `{code, message, status}` as a host answer, closing the connection when asked. */
export function errorAnswer(
  code: HostErrorCode,
  message: string,
  requestId: string,
  close = false,
): HostAnswer {
  const status = HOST_ERRORS[code];
  return jsonAnswer(
    status,
    requestId,
    { code, message, status },
    close ? { connection: 'close' } : {},
  );
}

/** An answer as raw HTTP/1.1 bytes, for a socket no response object is left to write to. */
export function rawAnswer({ status, headers, body }: HostAnswer): string {
  const lines = [`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  lines.push(`content-length: ${Buffer.byteLength(body)}`);
  return `${lines.join('\r\n')}\r\n\r\n${body}`;
}

/** A fresh request id, for requests whose headers were never parsed. */
export const newRequestId = (): string => randomUUID();
