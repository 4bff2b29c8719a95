import { type Handler, reply } from './context.js';

/** The document is built once per store; see openapi.ts. */
export const getOpenApi: Handler = async ({ openApiDocument }) => reply(200, openApiDocument);
