import type { Order, Pet } from '../../schemas/schemas.js';

/** Exactly the documented fields, in the documented order, whatever a storage returns. */
export const presentPet = (pet: Pet): Pet => ({
  id: pet.id,
  name: pet.name,
  categoryId: pet.categoryId,
  status: pet.status,
});

export const presentOrder = (order: Order): Order => ({
  id: order.id,
  petId: order.petId,
  quantity: order.quantity,
  shipDate: order.shipDate,
  status: order.status,
  complete: order.complete,
});
