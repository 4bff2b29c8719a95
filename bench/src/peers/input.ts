import { PET_STATUSES, type PetStatus } from './store.js';

/**
 * The contract's input rules, written out by hand for the peers: each check is a
 * regular expression or a comparison, and each problem is worded as the contract's
 * Error body words it (`details: [{ path, message }]`, message starting with the field).
 */

export const MAX_ID = Number.MAX_SAFE_INTEGER;

export interface Detail {
  readonly path: string;
  readonly message: string;
}

const detail = (name: string, rule: string): Detail => ({ path: name, message: `${name} ${rule}` });

export const RULES = {
  limit: 'must be an integer from 1 to 100',
  id: `must be an integer from 1 to ${MAX_ID}`,
  name: 'must be a string of 1 to 256 characters',
  nameText: 'must be valid Unicode text without NUL characters',
  status: 'must be one of available, pending, sold',
  cursor: 'is not a cursor this service issued',
  once: 'must be given at most once',
  plain: 'must be sent as plain text, not percent-encoded',
  idempotencyKey: 'must be 1 to 255 visible ASCII characters',
} as const;

const STATUSES: ReadonlySet<unknown> = new Set(PET_STATUSES);
const isStatus = (value: unknown): value is PetStatus => STATUSES.has(value);

// One spelling per value: no sign, no leading zero, no exponent.
const LIMIT_TEXT = /^[1-9]\d{0,2}$/;
const ID_TEXT = /^[1-9]\d{0,15}$/;
const CURSOR_TEXT = /^[A-Za-z0-9_-]+$/;

const parseLimit = (text: string): number | undefined =>
  LIMIT_TEXT.test(text) && Number(text) <= 100 ? Number(text) : undefined;

/** `petId` as the path carries it (still percent-encoded: `%31` is refused). */
export const parseId = (text: string): number | undefined =>
  ID_TEXT.test(text) && Number(text) <= MAX_ID ? Number(text) : undefined;

/** Opaque to clients: the base64url of the last id's digits. */
export const encodeCursor = (id: number): string =>
  Buffer.from(String(id), 'latin1').toString('base64url');

/** Only a cursor this service would write: canonical base64url of an id. */
function decodeCursor(text: string): number | undefined {
  if (!CURSOR_TEXT.test(text)) return undefined;
  const id = parseId(Buffer.from(text, 'base64url').toString('latin1'));
  return id !== undefined && encodeCursor(id) === text ? id : undefined;
}

const decodeName = (name: string): string => {
  if (!name.includes('%') && !name.includes('+')) return name;
  try {
    return decodeURIComponent(name.replaceAll('+', ' '));
  } catch {
    return name;
  }
};

/** One query parameter, judged on its text as sent; a problem goes to `details`. */
function judge<T>(
  name: string,
  count: number,
  text: string,
  parse: (text: string) => T | undefined,
  rule: string,
  details: Detail[],
): T | undefined {
  let problem: string = rule;
  if (count > 1) problem = RULES.once;
  else if (text.includes('%')) problem = RULES.plain;
  else {
    const value = parse(text);
    if (value !== undefined) return value;
  }
  details.push(detail(name, problem));
  return undefined;
}

export interface Page {
  readonly limit: number;
  readonly status: PetStatus | undefined;
  /** The last id of the previous page; 0 for the first page. */
  readonly afterId: number;
}

const parseStatus = (text: string): PetStatus | undefined => (isStatus(text) ? text : undefined);

/**
 * `limit`, `status` (pets only) and `cursor` from a raw query string (values not decoded);
 * other parameters are ignored. Every problem at once, in that order.
 */
export function readPage(query: string, withStatus: boolean): Page | Detail[] {
  let limits = 0;
  let statuses = 0;
  let cursors = 0;
  let limit = '';
  let status = '';
  let cursor = '';
  if (query !== '') {
    for (const pair of query.split('&')) {
      const eq = pair.indexOf('=');
      const name = decodeName(eq === -1 ? pair : pair.slice(0, eq));
      const value = eq === -1 ? '' : pair.slice(eq + 1);
      // Each counts every time it is sent; the first value is the one judged.
      if (name === 'limit') {
        if (limits++ === 0) limit = value;
      } else if (name === 'status' && withStatus) {
        if (statuses++ === 0) status = value;
      } else if (name === 'cursor') {
        if (cursors++ === 0) cursor = value;
      }
    }
  }
  const details: Detail[] = [];
  const page: Page = {
    limit:
      limits === 0 ? 20 : (judge('limit', limits, limit, parseLimit, RULES.limit, details) ?? 0),
    status:
      statuses === 0
        ? undefined
        : judge('status', statuses, status, parseStatus, RULES.status, details),
    afterId:
      cursors === 0
        ? 0
        : (judge('cursor', cursors, cursor, decodeCursor, RULES.cursor, details) ?? 0),
  };
  return details.length === 0 ? page : details;
}
