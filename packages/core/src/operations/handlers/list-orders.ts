import { nextLink } from '../../input/query.js';
import { type RequestContext, reply } from '../context.js';
import { presentOrder } from './present.js';

interface ListOrdersParams {
  readonly limit: number;
  /** The last id of the previous page. */
  readonly cursor: number | undefined;
}

export async function listOrders({
  params,
  options,
  publicPath,
}: RequestContext<ListOrdersParams>) {
  const { limit, cursor } = params;
  const rows = await options.storage.listOrders({ afterId: cursor, limit: limit + 1 });
  const orders = rows.slice(0, limit).map(presentOrder);
  const last = orders.at(-1);
  return rows.length > limit && last !== undefined
    ? reply(200, orders, { link: nextLink(`${publicPath}/store/orders`, limit, last.id) })
    : reply(200, orders);
}
