import Hapi, { type Server } from '@hapi/hapi';
import * as v from 'valibot';
import {
  createBarePets,
  firstPage,
  INVALID_LIMIT,
  invalidBody,
  isAuthorized,
  NewPetSchema,
  parseLimit,
  UNAUTHORIZED,
} from './bare-shared.js';

/** The baseline: the same two routes written directly on Hapi 21, idiomatically. */
export function bareHapiServer(): Server {
  const pets = createBarePets();
  const server = Hapi.server({ host: '127.0.0.1', port: 0 });
  const unauthorized = (h: Hapi.ResponseToolkit) =>
    h.response(UNAUTHORIZED).code(401).header('www-authenticate', 'Bearer realm="petstore"');

  server.route({
    method: 'GET',
    path: '/v1/pets',
    handler(request, h) {
      if (!isAuthorized(request.headers.authorization)) return unauthorized(h);
      const limit = parseLimit(request.query.limit);
      if (limit === undefined) return h.response(INVALID_LIMIT).code(400);
      const { page, link } = firstPage(pets, limit);
      const response = h.response(page);
      return link === undefined ? response : response.header('link', link);
    },
  });

  server.route({
    method: 'POST',
    path: '/v1/pets',
    options: { payload: { maxBytes: 16 * 1024 } },
    handler(request, h) {
      if (!isAuthorized(request.headers.authorization)) return unauthorized(h);
      const result = v.safeParse(NewPetSchema, request.payload);
      if (!result.success) return h.response(invalidBody(result.issues)).code(400);
      const { name, categoryId, status = 'available' } = result.output;
      const pet = { id: pets.length + 1, name, categoryId, status };
      pets.push(pet);
      return h.response(pet).code(201).header('location', `/v1/pets/${pet.id}`);
    },
  });
  return server;
}
