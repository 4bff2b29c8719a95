import type { ServerResponse } from 'node:http';
import type { ApiReferenceAnswer } from './answer.js';

/** The path of a request target as sent (an absolute-form target read by its path), no query. */
export function pathOf(target: string): string {
  const query = target.indexOf('?');
  const path = query === -1 ? target : target.slice(0, query);
  if (path.startsWith('/')) return path;
  const scheme = path.indexOf('://');
  if (scheme === -1) return path;
  const slash = path.indexOf('/', scheme + 3);
  return slash === -1 ? '/' : path.slice(slash);
}

/** Status, headers and body exactly as given: no framework adds or changes anything. */
export function writeAnswer(res: ServerResponse, { status, headers, body }: ApiReferenceAnswer) {
  res.writeHead(status, headers);
  res.end(body);
}
