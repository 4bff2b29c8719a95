import { createServer, type Server } from 'node:http';
import { createBarePets, firstPage } from './bare-shared.js';

/**
 * The runtime's ceiling: the same bytes from the same memory data as the bare
 * `node:http` routes, with no key check, no validation and no request id. No
 * one would ship it; it shows what `node:http` itself costs per request.
 */
export function rawNodeServer(): Server {
  const pets = createBarePets();
  return createServer((req, res) => {
    if (req.method === 'GET') {
      const { page, link } = firstPage(pets, 20);
      const body = JSON.stringify(page);
      res.writeHead(200, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(body),
        ...(link === undefined ? {} : { link }),
      });
      res.end(body);
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const {
        name,
        categoryId,
        status = 'available',
      } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        name: string;
        categoryId: number;
        status?: 'available' | 'pending' | 'sold';
      };
      const pet = { id: pets.length + 1, name, categoryId, status };
      pets.push(pet);
      const body = JSON.stringify(pet);
      res.writeHead(201, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(body),
        location: `/v1/pets/${pet.id}`,
      });
      res.end(body);
    });
  });
}
