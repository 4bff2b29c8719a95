import { abortCases } from './cases-aborts.js';
import { authCases } from './cases-auth.js';
import { createCases } from './cases-create.js';
import { errorCases } from './cases-errors.js';
import { getCases } from './cases-get.js';
import { idempotencyCases } from './cases-idempotency.js';
import { keyCases } from './cases-keys.js';
import { listCases } from './cases-list.js';
import { messageCases } from './cases-messages.js';
import { openApiCases } from './cases-openapi.js';
import { operationCases } from './cases-operations.js';
import { orderCases } from './cases-orders.js';
import type { ConformanceCase } from './types.js';

/** The whole HTTP contract as cases; every adapter runs all of them, none skipped. */
export const conformanceCases: readonly ConformanceCase[] = [
  ...authCases,
  ...createCases,
  ...listCases,
  ...getCases,
  ...orderCases,
  ...errorCases,
  ...idempotencyCases,
  ...operationCases,
  ...openApiCases,
  ...messageCases,
  ...keyCases,
  ...abortCases,
];

const names = conformanceCases.map((c) => c.name);
const duplicate = names.find((name, i) => names.indexOf(name) !== i);
if (duplicate !== undefined) throw new Error(`duplicate conformance case name: ${duplicate}`);
