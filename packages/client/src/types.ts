import type { components, operations } from './generated/openapi.js';

/** An animal as the service returns it. */
export type Pet = components['schemas']['Pet'];
/** The body of a create: no `id`, the service assigns it. */
export type NewPet = components['schemas']['NewPet'];
export type PetStatus = components['schemas']['PetStatus'];
/** A store order (the schema is provisional in the API document). */
export type Order = components['schemas']['Order'];
/** The JSON body of every error answer. */
export type ErrorBody = components['schemas']['Error'];
export type ErrorDetail = NonNullable<ErrorBody['details']>[number];

/** Each field may also be `undefined`, so `{ cursor: page.nextCursor }` type-checks as is. */
type Query<Operation extends keyof operations> = {
  [Name in keyof NonNullable<operations[Operation]['parameters']['query']>]?:
    | NonNullable<operations[Operation]['parameters']['query']>[Name]
    | undefined;
};

/** `GET /pets` query: `status`, `limit` (1 to 100, default 20) and the `cursor` of a page. */
export type ListPetsQuery = Query<'listPets'>;
/** `GET /store/orders` query: `limit` and `cursor`. */
export type ListOrdersQuery = Query<'listOrders'>;

/** One page of a listing, and the cursor of the next one (undefined on the last page). */
export interface Page<T> {
  readonly items: T[];
  readonly nextCursor: string | undefined;
}
