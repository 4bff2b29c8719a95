import express, { type Express, type RequestHandler } from 'express';
import * as v from 'valibot';
import {
  type BarePet,
  createBarePets,
  firstPage,
  INVALID_LIMIT,
  invalidBody,
  isAuthorized,
  NewPetSchema,
  parseLimit,
  UNAUTHORIZED,
} from './bare-shared.js';

/** The baseline: the same two routes written directly on Express 5, idiomatically. */
export function bareExpressApp(): Express {
  const pets = createBarePets();
  const app = express();
  // Both Express apps in the bench drop these, so neither side pays for an ETag over the body.
  app.set('etag', false);
  app.set('x-powered-by', false);

  const auth: RequestHandler = (req, res, next) => {
    if (isAuthorized(req.headers.authorization)) next();
    else res.status(401).set('www-authenticate', 'Bearer realm="petstore"').json(UNAUTHORIZED);
  };

  app.get('/v1/pets', auth, (req, res) => {
    // A repeated `limit` arrives as an array and is refused, as the contract says.
    const limit = parseLimit(req.query.limit);
    if (limit === undefined) {
      res.status(400).json(INVALID_LIMIT);
      return;
    }
    const { page, link } = firstPage(pets, limit);
    if (link !== undefined) res.set('link', link);
    res.json(page);
  });

  app.post('/v1/pets', auth, express.json({ limit: '16kb' }), (req, res) => {
    const result = v.safeParse(NewPetSchema, req.body);
    if (!result.success) {
      res.status(400).json(invalidBody(result.issues));
      return;
    }
    const { name, categoryId, status = 'available' } = result.output;
    const pet: BarePet = { id: pets.length + 1, name, categoryId, status };
    pets.push(pet);
    res.status(201).set('location', `/v1/pets/${pet.id}`).json(pet);
  });
  return app;
}
