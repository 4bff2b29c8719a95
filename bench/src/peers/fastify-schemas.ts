import { MAX_ID } from './fastify-errors.js';
import { PET_STATUSES } from './fastify-state.js';

/**
 * The peer's route schemas: Fastify compiles the request ones with ajv and the
 * response ones with fast-json-stringify (which writes exactly these
 * properties, in this order). Values in the query and path stay text as sent
 * (see `parseRawQuery`), so each has one spelling: a pattern, not a coercion.
 */

export const LIMIT_PATTERN = '^(?:[1-9][0-9]?|100)$';
export const CURSOR_PATTERN = '^[A-Za-z0-9_-]+$';
/** Up to 16 digits: the range check up to 2^53 − 1 is the handler's. */
const PET_ID_PATTERN = '^[1-9][0-9]{0,15}$';
/** No NUL, no lone surrogate: ajv's `u` flag reads a lone surrogate as one code point. */
const NAME_TEXT_PATTERN = '^[^\\u0000\\uD800-\\uDFFF]*$';

const ID = { type: 'integer', minimum: 1, maximum: MAX_ID } as const;
const STATUS = { type: 'string', enum: PET_STATUSES } as const;

export const NEW_PET = {
  type: 'object',
  required: ['name', 'categoryId'],
  additionalProperties: false,
  properties: {
    // ajv counts code points, as the contract's "characters" do.
    name: { type: 'string', minLength: 1, maxLength: 256, pattern: NAME_TEXT_PATTERN },
    categoryId: ID,
    status: STATUS,
  },
} as const;

export const CREATE_HEADERS = {
  type: 'object',
  properties: { 'idempotency-key': { type: 'string', pattern: '^[\\x21-\\x7e]{1,255}$' } },
} as const;

export const PET_PARAMS = {
  type: 'object',
  properties: { petId: { type: 'string', pattern: PET_ID_PATTERN } },
} as const;

const LIMIT = { type: 'string', pattern: LIMIT_PATTERN } as const;
const CURSOR = { type: 'string', pattern: CURSOR_PATTERN } as const;
/** Unknown parameters are ignored: no `additionalProperties: false` here. */
export const PETS_QUERY = {
  type: 'object',
  properties: { limit: LIMIT, status: { type: 'string', enum: PET_STATUSES }, cursor: CURSOR },
} as const;
export const ORDERS_QUERY = {
  type: 'object',
  properties: { limit: LIMIT, cursor: CURSOR },
} as const;

const PET = {
  type: 'object',
  required: ['id', 'name', 'categoryId', 'status'],
  properties: {
    id: { type: 'integer' },
    name: { type: 'string' },
    categoryId: { type: 'integer' },
    status: { type: 'string' },
  },
} as const;

const ORDER = {
  type: 'object',
  required: ['id', 'petId', 'quantity', 'shipDate', 'status', 'complete'],
  properties: {
    id: { type: 'integer' },
    petId: { type: 'integer' },
    quantity: { type: 'integer' },
    shipDate: { type: 'string' },
    status: { type: 'string' },
    complete: { type: 'boolean' },
  },
} as const;

const ERROR = {
  type: 'object',
  required: ['code', 'message', 'status'],
  properties: {
    code: { type: 'string' },
    message: { type: 'string' },
    status: { type: 'integer' },
    details: {
      type: 'array',
      items: {
        type: 'object',
        required: ['path', 'message'],
        properties: { path: { type: 'string' }, message: { type: 'string' } },
      },
    },
  },
} as const;

const ERRORS = { '4xx': ERROR, '5xx': ERROR } as const;
export const PET_RESPONSES = { 200: PET, 201: PET, ...ERRORS } as const;
export const PETS_RESPONSES = { 200: { type: 'array', items: PET }, ...ERRORS } as const;
export const ORDERS_RESPONSES = { 200: { type: 'array', items: ORDER }, ...ERRORS } as const;
