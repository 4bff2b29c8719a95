export { type ClientErrorHandlerOptions, installClientErrorHandler } from '@petstore/node';
export {
  type PetStorePluginOptions,
  petStoreFrameworkErrors,
  petStorePlugin,
  petStoreRewriteUrl,
  petStoreServerOptions,
} from './plugin.js';
