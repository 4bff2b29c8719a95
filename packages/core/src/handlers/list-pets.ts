import { isApiError } from '../errors.js';
import { nextLink, parsePageParams, parseStatusParam } from '../query.js';
import type { Pet } from '../schemas.js';
import { type Handler, reply } from './context.js';
import { presentPet } from './present.js';

/** Not async: a refused request answers at once, and a page waits only on the storage. */
export const listPets: Handler = ({ query, options, basePath }) => {
  const page = parsePageParams(query);
  if (isApiError(page)) return page;
  const status = parseStatusParam(query);
  if (isApiError(status)) return status;

  // One row more than asked tells whether a next page exists.
  const rows = options.storage.listPets({ status, afterId: page.afterId, limit: page.limit + 1 });
  return Promise.resolve(rows).then((found) => {
    const pets: Pet[] = [];
    for (let i = 0; i < found.length && i < page.limit; i++) pets.push(presentPet(found[i] as Pet));
    const last = pets.at(-1);
    return found.length > page.limit && last !== undefined
      ? reply(200, pets, { link: nextLink(`${basePath}/pets`, page.limit, last.id, status) })
      : reply(200, pets);
  });
};
