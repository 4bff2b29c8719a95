import { expect } from 'vitest';
import { get } from './helpers.js';
import type { ConformanceCase } from './types.js';

// biome-ignore lint/suspicious/noExplicitAny: walking a parsed document in assertions only.
type Json = Record<string, any>;

export const openApiCases: ConformanceCase[] = [
  {
    name: 'openapi: GET /openapi.json serves OpenAPI 3.1, version 1.0.0, bearer auth, getPet deprecated',
    rule: 'OpenAPI document: 3.1, version 1.0.0, getPet deprecated: true, bearer security scheme',
    run: async ({ send }) => {
      const res = await send(get('/openapi.json', {}));
      expect(res.status).toBe(200);
      const doc = JSON.parse(res.body) as Json;
      expect(doc.openapi).toMatch(/^3\.1\./);
      expect(doc.info.version).toBe('1.0.0');
      expect(doc.paths['/pets/{petId}'].get.deprecated).toBe(true);
      expect(doc.components.securitySchemes.bearerAuth).toMatchObject({
        type: 'http',
        scheme: 'bearer',
      });
      expect(doc.security).toEqual([{ bearerAuth: [] }]);
    },
  },
  {
    name: 'openapi: both servers from the options appear in the document',
    rule: 'Environments: production and staging base URLs are configuration, shown in the document',
    options: {
      servers: [
        { url: 'https://api.example.com/v1', description: 'Production' },
        { url: 'https://staging.example.com/v1', description: 'Staging' },
      ],
    },
    run: async ({ send }) => {
      const doc = JSON.parse((await send(get('/openapi.json'))).body) as Json;
      expect(doc.servers).toEqual([
        { url: 'https://api.example.com/v1', description: 'Production' },
        { url: 'https://staging.example.com/v1', description: 'Staging' },
      ]);
    },
  },
  {
    name: 'openapi: every documented error status of every operation uses the Error schema',
    rule: 'OpenAPI document: every status code above documented per operation (503 on every one while load shedding is on)',
    // On (as by default), at a limit no test machine's stall reaches: the document says so.
    options: { loadShedding: { maxEventLoopDelayMs: 600_000 } },
    run: async ({ send }) => {
      const doc = JSON.parse((await send(get('/openapi.json'))).body) as Json;
      const statuses = (path: string, method: string) =>
        Object.keys(doc.paths[path][method].responses).sort();
      expect(statuses('/pets', 'get')).toEqual(['200', '400', '401', '500', '503']);
      expect(statuses('/pets', 'post')).toEqual([
        '201',
        '400',
        '401',
        '409',
        '413',
        '415',
        '422',
        '500',
        '503',
      ]);
      expect(statuses('/pets/{petId}', 'get')).toEqual(['200', '400', '401', '404', '500', '503']);
      expect(statuses('/store/orders', 'get')).toEqual(['200', '400', '401', '500', '503']);
      // With load shedding on, any request may be answered 503 at once, the document's too.
      expect(statuses('/openapi.json', 'get')).toEqual(['200', '417', '503']);
      expect(doc.components.schemas.Order.description).toMatch(/provisional/i);
    },
  },
];
