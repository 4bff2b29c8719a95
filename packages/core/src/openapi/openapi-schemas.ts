import { type ConversionConfig, toJsonSchema, toJsonSchemaDefs } from '@valibot/to-json-schema';
import type * as v from 'valibot';
import {
  ErrorBodySchema,
  NewPetSchema,
  OrderSchema,
  OrdersSchema,
  PetSchema,
  PetStatusSchema,
  PetsSchema,
  type SchemaName,
} from '../schemas/schemas.js';

/** The document's schemas, converted from the valibot schemas that validate requests. */

export type Json = Record<string, unknown>;

const schemas: Record<SchemaName, v.GenericSchema> = {
  Pet: PetSchema,
  NewPet: NewPetSchema,
  Pets: PetsSchema,
  PetStatus: PetStatusSchema,
  Order: OrderSchema,
  Orders: OrdersSchema,
  Error: ErrorBodySchema,
};

// `check` actions hold rules JSON Schema states through metadata (maxLength) or cannot state at all.
const CONVERSION: ConversionConfig = {
  target: 'draft-2020-12',
  typeMode: 'output',
  ignoreActions: ['check'],
};

export const ref = (name: keyof typeof schemas) => ({ $ref: `#/components/schemas/${name}` });

/** JSON Schema 2020-12 (OpenAPI 3.1's dialect) with refs pointed at components. */
export function componentSchemas(): Json {
  const defs = toJsonSchemaDefs(schemas, CONVERSION);
  return JSON.parse(JSON.stringify(defs).replaceAll('"#/$defs/', '"#/components/schemas/')) as Json;
}

export const paramSchema = (schema: v.GenericSchema): Json => {
  const { $schema: _, ...rest } = toJsonSchema(schema, CONVERSION);
  return rest;
};

/** A JSON body, with its schema when the document has one. */
export const json = (schema: Json | undefined) => ({
  'application/json': schema === undefined ? {} : { schema },
});
