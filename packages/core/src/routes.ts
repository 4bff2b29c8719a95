import { createPet } from './handlers/create-pet.js';
import { getOpenApi } from './handlers/get-openapi.js';
import { deprecationHeaders, getPet } from './handlers/get-pet.js';
import { listOrders } from './handlers/list-orders.js';
import { listPets } from './handlers/list-pets.js';
import type { ResolvedOptions } from './options.js';
import type { Route } from './router.js';

/** The route table: paths below the base path, and the operation for each method. */
export function buildRoutes(
  options: ResolvedOptions,
  openApiDocument: Readonly<Record<string, unknown>>,
): Route[] {
  const routes: Route[] = [
    {
      template: '/pets',
      pattern: /^\/pets$/,
      methods: {
        GET: { operationId: 'listPets', handler: listPets },
        POST: { operationId: 'createPet', handler: createPet },
      },
    },
    {
      template: '/pets/{petId}',
      pattern: /^\/pets\/([^/]+)$/,
      methods: {
        GET: {
          operationId: 'getPet',
          handler: getPet,
          deprecated: true,
          headers: (context) => deprecationHeaders(context.options, context.basePath),
        },
      },
    },
    {
      template: '/store/orders',
      pattern: /^\/store\/orders$/,
      methods: { GET: { operationId: 'listOrders', handler: listOrders } },
    },
  ];
  if (options.exposeOpenApi) {
    routes.push({
      template: '/openapi.json',
      pattern: /^\/openapi\.json$/,
      methods: {
        GET: {
          operationId: 'getOpenApiDocument',
          handler: getOpenApi(openApiDocument),
          public: true,
        },
      },
    });
  }
  return routes;
}
