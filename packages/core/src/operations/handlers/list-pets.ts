import { nextLink } from '../../input/query.js';
import type { Pet, PetStatus } from '../../schemas/schemas.js';
import { type RequestContext, reply } from '../context.js';
import { presentPet } from './present.js';

interface ListPetsParams {
  readonly limit: number;
  readonly status: PetStatus | undefined;
  /** The last id of the previous page. */
  readonly cursor: number | undefined;
}

/** Not async: a page waits only on the storage. */
export function listPets({ params, options, publicPath }: RequestContext<ListPetsParams>) {
  const { limit, status, cursor } = params;
  // One row more than asked tells whether a next page exists.
  const rows = options.storage.listPets({ status, afterId: cursor, limit: limit + 1 });
  return Promise.resolve(rows).then((found) => {
    const pets: Pet[] = [];
    for (let i = 0; i < found.length && i < limit; i++) pets.push(presentPet(found[i] as Pet));
    const last = pets.at(-1);
    return found.length > limit && last !== undefined
      ? reply(200, pets, { link: nextLink(`${publicPath}/pets`, limit, last.id, status) })
      : reply(200, pets);
  });
}
