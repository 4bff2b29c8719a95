import { isApiError } from '../errors.js';
import { nextLink, parsePageParams } from '../query.js';
import { type Handler, reply } from './context.js';
import { presentOrder } from './present.js';

export const listOrders: Handler = async ({ query, options, basePath }) => {
  const page = parsePageParams(query);
  if (isApiError(page)) return page;

  const rows = await options.storage.listOrders({ afterId: page.afterId, limit: page.limit + 1 });
  const orders = rows.slice(0, page.limit).map(presentOrder);
  const last = orders.at(-1);
  return rows.length > page.limit && last !== undefined
    ? reply(200, orders, { link: nextLink(`${basePath}/store/orders`, page.limit, last.id) })
    : reply(200, orders);
};
