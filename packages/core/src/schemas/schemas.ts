import * as v from 'valibot';
import { MAX_ERROR_DETAILS } from '../http/errors.js';

/** A component schema of the document, by name (see openapi.ts). */
export type SchemaName = 'Pet' | 'NewPet' | 'Pets' | 'PetStatus' | 'Order' | 'Orders' | 'Error';

/** Largest id or categoryId: JavaScript's safe-integer ceiling, 2^53 − 1. */
export const MAX_ID = Number.MAX_SAFE_INTEGER;

/**
 * What each field must be, in words a client can act on. Every check below
 * carries one of these, so a validation message is always ours, never the
 * validator's, and names the rule (the field name is put in front of it).
 */
export const RULES = {
  id: `must be an integer from 1 to ${MAX_ID}`,
  name: 'must be a string of 1 to 256 characters',
  nameText: 'must be valid Unicode text without NUL characters',
  status: 'must be one of available, pending, sold',
} as const;

const int64 = (description: string) =>
  v.pipe(
    v.number(RULES.id),
    v.integer(RULES.id),
    v.minValue(1, RULES.id),
    v.maxValue(MAX_ID, RULES.id),
    v.description(description),
  );

export const PetStatusSchema = v.pipe(
  v.picklist(['available', 'pending', 'sold'], RULES.status),
  v.description("The animal's availability."),
);
export type PetStatus = v.InferOutput<typeof PetStatusSchema>;
export const PET_STATUSES = PetStatusSchema.options;

const PetIdSchema = int64('Identifier assigned by the service, increasing in creation order.');
const CategoryIdSchema = int64('Identifier of the category the animal belongs to.');
/** Characters as JSON Schema counts them (code points), so validation and the document agree. */
const codePoints = (text: string): number => {
  let count = 0;
  for (const _ of text) count++;
  return count;
};

const PetNameSchema = v.pipe(
  v.string(RULES.name),
  v.minLength(1, RULES.name),
  v.check((name) => codePoints(name) <= 256, RULES.name),
  // PostgreSQL text cannot hold NUL, and a lone surrogate cannot be encoded: refuse both up
  // front. The NUL rule as a regex, so the document states it (a pattern); the other one JSON
  // Schema cannot state (its strings are Unicode text already).
  // biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is the character refused.
  v.regex(/^[^\u0000]*$/, RULES.nameText),
  v.check((name) => name.isWellFormed(), RULES.nameText),
  v.metadata({ maxLength: 256 }),
  v.description("The animal's name: 1 to 256 characters of Unicode text, no NUL (U+0000)."),
  v.examples(['Rex']),
);

/**
 * Request body of createPet. Unknown properties (including `id`) are rejected.
 * A missing field, an unknown one and a body that is no object are worded in
 * validation.ts; every other message is one of `RULES`.
 */
export const NewPetSchema = v.pipe(
  v.strictObject(
    {
      name: PetNameSchema,
      categoryId: CategoryIdSchema,
      status: v.optional(PetStatusSchema),
    },
    'must be a JSON object',
  ),
  v.title('NewPet'),
);
export type NewPet = v.InferOutput<typeof NewPetSchema>;

/** An animal as stored and returned: exactly these fields, in this order. */
export const PetSchema = v.pipe(
  v.strictObject({
    id: PetIdSchema,
    name: PetNameSchema,
    categoryId: CategoryIdSchema,
    status: PetStatusSchema,
  }),
  v.title('Pet'),
  // A page generating examples would fill `status` of a nested Pet with null: here is a valid one.
  v.examples([{ id: 1, name: 'Rex', categoryId: 1, status: 'available' as const }]),
);
export type Pet = v.InferOutput<typeof PetSchema>;

/** What the core hands to storage for a new pet: the status already defaulted. */
export type PetInput = Omit<Pet, 'id'>;

export const PetsSchema = v.pipe(v.array(PetSchema), v.title('Pets'));

const OrderStatusSchema = v.picklist(['placed', 'approved', 'delivered']);
export type OrderStatus = v.InferOutput<typeof OrderStatusSchema>;
/** Every order status, from the schema: storages check their rows against it. */
export const ORDER_STATUSES = OrderStatusSchema.options;

/** Provisional: the interface only says the listing exists; fields follow the classic Swagger Petstore. */
export const OrderSchema = v.pipe(
  v.strictObject({
    id: int64('Identifier assigned by the storage, increasing in creation order.'),
    petId: int64('The ordered animal.'),
    quantity: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_ID)),
    shipDate: v.pipe(v.string(), v.isoTimestamp(), v.description('RFC 3339 date-time.')),
    status: OrderStatusSchema,
    complete: v.boolean(),
  }),
  v.title('Order'),
  v.description('Provisional: the order resource is not specified by the interface document.'),
);
export type Order = v.InferOutput<typeof OrderSchema>;
export type OrderInput = Omit<Order, 'id'>;
export const OrdersSchema = v.pipe(v.array(OrderSchema), v.title('Orders'));

export const ErrorBodySchema = v.pipe(
  v.object({
    code: v.pipe(v.string(), v.description('Machine-readable error code.')),
    message: v.pipe(v.string(), v.description('Human-readable description.')),
    status: v.pipe(v.number(), v.integer(), v.description('The HTTP status code.')),
    details: v.optional(
      v.pipe(
        v.array(v.object({ path: v.string(), message: v.string() })),
        v.maxLength(MAX_ERROR_DETAILS),
        v.description(
          `Validation errors: one entry per problem, at most ${MAX_ERROR_DETAILS}, in the order found (the schema's fields, then unknown properties as sent); when there were more, \`message\` says how many in all.`,
        ),
      ),
    ),
  }),
  v.title('Error'),
);
export type ErrorBody = v.InferOutput<typeof ErrorBodySchema>;
