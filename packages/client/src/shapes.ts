import * as v from 'valibot';

const integer = v.pipe(v.number(), v.integer());

// Loose objects: a newer service may add fields. What is checked is what the client's types
// promise its caller, so a wrong answer fails here, named, and not later as a TypeError.
const PetShape = v.looseObject({
  id: integer,
  name: v.string(),
  categoryId: integer,
  status: v.string(),
});
const OrderShape = v.looseObject({
  id: integer,
  petId: integer,
  quantity: integer,
  shipDate: v.string(),
  status: v.string(),
  complete: v.boolean(),
});

/** The shape of each operation's 2xx body. */
const SUCCESS_SHAPES = {
  createPet: PetShape,
  getPet: PetShape,
  listPets: v.array(PetShape),
  listOrders: v.array(OrderShape),
} as const;

export type Operation = keyof typeof SUCCESS_SHAPES;

/** Where and how `value` misses the operation's shape, or undefined when it fits. */
export function shapeProblem(operation: Operation, value: unknown): string | undefined {
  const result = v.safeParse(SUCCESS_SHAPES[operation], value);
  if (result.success) return undefined;
  const issue = result.issues[0];
  const path = issue.path?.map((item) => String(item.key)).join('.') ?? '';
  return `${path === '' ? 'the body' : path}: ${issue.message}`;
}
