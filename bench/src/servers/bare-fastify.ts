import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
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

/** The baseline: the same two routes written directly on Fastify 5, idiomatically. */
export function bareFastifyApp(): FastifyInstance {
  const pets = createBarePets();
  const app = Fastify({ bodyLimit: 16 * 1024 });
  const unauthorized = (reply: FastifyReply) =>
    reply.code(401).header('www-authenticate', 'Bearer realm="petstore"').send(UNAUTHORIZED);

  app.get('/v1/pets', (request, reply) => {
    if (!isAuthorized(request.headers.authorization)) return unauthorized(reply);
    // A repeated `limit` arrives as an array and is refused, as the contract says.
    const limit = parseLimit((request.query as Record<string, unknown>).limit);
    if (limit === undefined) return reply.code(400).send(INVALID_LIMIT);
    const { page, link } = firstPage(pets, limit);
    if (link !== undefined) reply.header('link', link);
    return reply.send(page);
  });

  app.post('/v1/pets', (request, reply) => {
    if (!isAuthorized(request.headers.authorization)) return unauthorized(reply);
    const result = v.safeParse(NewPetSchema, request.body);
    if (!result.success) return reply.code(400).send(invalidBody(result.issues));
    const { name, categoryId, status = 'available' } = result.output;
    const pet = { id: pets.length + 1, name, categoryId, status };
    pets.push(pet);
    return reply.code(201).header('location', `/v1/pets/${pet.id}`).send(pet);
  });
  return app;
}
