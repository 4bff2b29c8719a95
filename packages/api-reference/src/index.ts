export type { RequestHeaders } from './answer.js';
export {
  type ApiReference,
  type ApiReferenceOptions,
  createApiReference,
} from './api-reference.js';
export { CONTENT_SECURITY_POLICY } from './page.js';
