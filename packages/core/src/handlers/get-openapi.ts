import { type Handler, reply } from './context.js';

/** Built once per store; see openapi.ts. */
export const getOpenApi =
  (document: Readonly<Record<string, unknown>>): Handler =>
  async () =>
    reply(200, document);
