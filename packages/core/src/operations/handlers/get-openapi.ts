import { type RequestContext, reply } from '../context.js';

/** The document is built once per store; see openapi.ts. */
export const getOpenApi = async ({ store }: RequestContext) => reply(200, store.openApiDocument);
