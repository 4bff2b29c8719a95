import { type ErrorCode, errorResponse } from '@petstore/core';
import { type HostAnswer, jsonAnswer } from './host-routes.js';

/** The Error body `{code, message, status}` as a host answer, for what the front door refuses. */
export function errorAnswer(code: ErrorCode, message: string, requestId: string): HostAnswer {
  const { status, body = '' } = errorResponse({ kind: 'error', code, message });
  return jsonAnswer(status, requestId, JSON.parse(body) as object);
}
