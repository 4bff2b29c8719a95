import type { WireRequest } from '../wire.js';
import { get, JSON_TYPE, post } from './helpers.js';
import type { ConformanceCase } from './types.js';

/**
 * The message table: every field of every input, each kind of problem, and
 * the exact Error body it answers. Each detail message starts with the field
 * it is about; the summary is `Invalid <where>: <detail>; <detail>.`
 */
type Detail = readonly [path: string, message: string];

const MAX = '9007199254740991';
const NAME = 'name must be a string of 1 to 256 characters';
const NAME_TEXT = 'name must be valid Unicode text without NUL characters';
const CATEGORY = `categoryId must be an integer from 1 to ${MAX}`;
const STATUS = 'status must be one of available, pending, sold';
const BODY: Detail = ['(body)', 'the request body must be a JSON object'];
const LIMIT = 'limit must be an integer from 1 to 100';
const PETID = `petId must be an integer from 1 to ${MAX}`;

const exactly = (
  where: string,
  request: WireRequest,
  details: readonly Detail[],
  total = details.length,
) => {
  const summary = details.map(([, message]) => message).join('; ');
  return {
    status: 400,
    headers: { 'content-type': JSON_TYPE, location: undefined },
    bodyText: JSON.stringify({
      code: 'invalid_request',
      message:
        total > details.length
          ? `Invalid ${where}: ${total} problems, the first ${details.length}: ${summary}.`
          : `Invalid ${where}: ${summary}.`,
      status: 400,
      details: details.map(([path, message]) => ({ path, message })),
    }),
    request,
  };
};

const body = (text: string, ...details: Detail[]): ConformanceCase => {
  const { request, ...expect } = exactly('pet', post('/pets', text), details);
  return {
    name: `messages: POST /pets ${text.length > 60 ? `${text.slice(0, 60)}…` : text} → ${details.map(([, m]) => m).join('; ')}`,
    rule: 'Validation: our own message per problem, naming the field and the rule; details one {path, message} per problem in a stable order',
    request,
    expect,
  };
};

/** `count` unknown properties `k0000`, `k0001`... after a valid name and categoryId. */
const unknownKeys = (count: number, before = '"name":"Rex","categoryId":1') =>
  `{${[before, ...Array.from({ length: count }, (_, i) => `"k${String(i).padStart(4, '0')}":1`)].filter((part) => part !== '').join(',')}}`;
const notAllowed = (count: number): Detail[] =>
  Array.from({ length: count }, (_, i) => {
    const key = `k${String(i).padStart(4, '0')}`;
    return [key, `${key} is not allowed`] as const;
  });

/** More problems than are named: the first 20 in order, the message counting all. */
const many = (text: string, total: number, ...details: Detail[]): ConformanceCase => {
  const { request, ...expect } = exactly('pet', post('/pets', text), details, total);
  return {
    name: `messages: POST /pets with ${total} problems → the first ${details.length} named, ${total} counted (${text.slice(0, 40)}…)`,
    rule: 'Errors: details lists at most 20 problems, in the order found (unknown properties included); when there were more, message says how many in all',
    request,
    expect,
  };
};

const query = (path: string, parameter: string, message: string): ConformanceCase => {
  const { request, ...expect } = exactly('query', get(path), [[parameter, message]]);
  return {
    name: `messages: GET ${path} → ${message}`,
    rule: 'GET /pets, /store/orders: limit, status and cursor are judged on their text as sent; 400 naming the parameter',
    request,
    expect,
  };
};

const pathParam = (id: string): ConformanceCase => {
  const { request, ...expect } = exactly('path', get(`/pets/${id}`), [['petId', PETID]]);
  return {
    name: `messages: GET /pets/${id} → ${PETID}`,
    rule: 'GET /pets/{petId}: petId is a decimal integer from 1 to 2^53 − 1, else 400 naming petId',
    request,
    expect,
  };
};

const long = (character: string, count: number) => character.repeat(count);

export const messageCases: ConformanceCase[] = [
  // Missing required fields.
  body('{"categoryId":1}', ['name', 'name is required']),
  body('{"name":"Rex"}', ['categoryId', 'categoryId is required']),
  body('{}', ['name', 'name is required'], ['categoryId', 'categoryId is required']),
  body('{"status":"sold"}', ['name', 'name is required'], ['categoryId', 'categoryId is required']),
  // name: type, length, text.
  body('{"name":42,"categoryId":1}', ['name', NAME]),
  body('{"name":null,"categoryId":1}', ['name', NAME]),
  body('{"name":true,"categoryId":1}', ['name', NAME]),
  body('{"name":["Rex"],"categoryId":1}', ['name', NAME]),
  body('{"name":{"first":"Rex"},"categoryId":1}', ['name', NAME]),
  body('{"name":"","categoryId":1}', ['name', NAME]),
  body(`{"name":"${long('n', 257)}","categoryId":1}`, ['name', NAME]),
  body(`{"name":"${long('🐕', 257)}","categoryId":1}`, ['name', NAME]),
  body('{"name":"Re\\u0000x","categoryId":1}', ['name', NAME_TEXT]),
  body('{"name":"Rex\\ud800","categoryId":1}', ['name', NAME_TEXT]),
  // categoryId: type, range, fraction, rounding.
  body('{"name":"Rex","categoryId":"1"}', ['categoryId', CATEGORY]),
  body('{"name":"Rex","categoryId":null}', ['categoryId', CATEGORY]),
  body('{"name":"Rex","categoryId":true}', ['categoryId', CATEGORY]),
  body('{"name":"Rex","categoryId":[1]}', ['categoryId', CATEGORY]),
  body('{"name":"Rex","categoryId":0}', ['categoryId', CATEGORY]),
  body('{"name":"Rex","categoryId":-1}', ['categoryId', CATEGORY]),
  body('{"name":"Rex","categoryId":-1.5}', ['categoryId', CATEGORY]),
  body('{"name":"Rex","categoryId":1.5}', ['categoryId', CATEGORY]),
  body('{"name":"Rex","categoryId":9007199254740992}', ['categoryId', CATEGORY]),
  body('{"name":"Rex","categoryId":9007199254740993}', ['categoryId', CATEGORY]),
  body('{"name":"Rex","categoryId":1.0000000000000001}', ['categoryId', CATEGORY]),
  body('{"name":"Rex","categoryId":1e400}', ['categoryId', CATEGORY]),
  // status: type and value.
  body('{"name":"Rex","categoryId":1,"status":"lost"}', ['status', STATUS]),
  body('{"name":"Rex","categoryId":1,"status":"SOLD"}', ['status', STATUS]),
  body('{"name":"Rex","categoryId":1,"status":""}', ['status', STATUS]),
  body('{"name":"Rex","categoryId":1,"status":null}', ['status', STATUS]),
  body('{"name":"Rex","categoryId":1,"status":1}', ['status', STATUS]),
  // Unknown properties, each named, in the order sent.
  body('{"id":5,"name":"Rex","categoryId":1}', ['id', 'id is not allowed']),
  body(
    '{"name":"Rex","colour":"brown","categoryId":1,"age":3}',
    ['colour', 'colour is not allowed'],
    ['age', 'age is not allowed'],
  ),
  // A body that is no object: one problem, whatever is inside.
  body('[]', BODY),
  body('[1,2]', BODY),
  body('[{"name":"Rex","categoryId":1}]', BODY),
  body('"Rex"', BODY),
  body('42', BODY),
  body('null', BODY),
  body('true', BODY),
  // Several problems at once: schema order (name, categoryId, status), then unknown properties.
  body(
    '{"zeta":1,"status":"x","categoryId":"1"}',
    ['name', 'name is required'],
    ['categoryId', CATEGORY],
    ['status', STATUS],
    ['zeta', 'zeta is not allowed'],
  ),
  body(
    '{"status":null,"id":1,"categoryId":0,"name":""}',
    ['name', NAME],
    ['categoryId', CATEGORY],
    ['status', STATUS],
    ['id', 'id is not allowed'],
  ),
  // At most 20 problems named, in the order found; past that the message counts them all.
  body(unknownKeys(20), ...notAllowed(20)),
  many(unknownKeys(21), 21, ...notAllowed(20)),
  many(
    unknownKeys(20, '"categoryId":0'),
    22,
    ['name', 'name is required'],
    ['categoryId', CATEGORY],
    ...notAllowed(18),
  ),
  // 1,300 unknown keys (13 KB, under the 16 KiB limit): still 20 named, the answer small.
  many(unknownKeys(1300), 1300, ...notAllowed(20)),
  // Query values, judged as sent.
  query('/pets?limit=abc', 'limit', LIMIT),
  query('/pets?limit=0', 'limit', LIMIT),
  query('/pets?limit=101', 'limit', LIMIT),
  query('/pets?limit=1.5', 'limit', LIMIT),
  query('/pets?limit=-5', 'limit', LIMIT),
  query('/pets?limit=05', 'limit', LIMIT),
  query('/pets?limit=', 'limit', LIMIT),
  query('/pets?limit=+1', 'limit', LIMIT),
  query('/pets?limit=%31', 'limit', 'limit must be sent as plain text, not percent-encoded'),
  query('/pets?limit=1%30', 'limit', 'limit must be sent as plain text, not percent-encoded'),
  query('/pets?limit=1&limit=2', 'limit', 'limit must be given at most once'),
  query('/pets?status=lost', 'status', STATUS),
  query('/pets?status=', 'status', STATUS),
  query('/pets?status=sold+', 'status', STATUS),
  query('/pets?status=%73old', 'status', 'status must be sent as plain text, not percent-encoded'),
  query('/pets?status=sold&status=sold', 'status', 'status must be given at most once'),
  query('/pets?cursor=!', 'cursor', 'cursor is not a cursor this service issued'),
  query('/pets?cursor=MA', 'cursor', 'cursor is not a cursor this service issued'),
  query('/pets?cursor=%4dQ', 'cursor', 'cursor must be sent as plain text, not percent-encoded'),
  query('/pets?cursor=MQ&cursor=MQ', 'cursor', 'cursor must be given at most once'),
  query(
    '/store/orders?limit=%31',
    'limit',
    'limit must be sent as plain text, not percent-encoded',
  ),
  query(
    '/store/orders?cursor=%4dQ',
    'cursor',
    'cursor must be sent as plain text, not percent-encoded',
  ),
  // Path and header values.
  pathParam('abc'),
  pathParam('0'),
  pathParam('%31'),
  pathParam('9007199254740992'),
  (() => {
    const message = 'Idempotency-Key must be 1 to 255 visible ASCII characters';
    const { request, ...expect } = exactly(
      'header',
      post('/pets', '{"name":"Rex","categoryId":1}', { 'idempotency-key': 'has space' }),
      [['Idempotency-Key', message]],
    );
    return {
      name: `messages: Idempotency-Key "has space" → ${message}`,
      rule: 'POST /pets: Idempotency-Key is 1 to 255 visible ASCII characters',
      request,
      expect,
    };
  })(),
];
