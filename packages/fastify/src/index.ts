export { type ClientErrorHandlerOptions, installClientErrorHandler } from '@petstore/node';
export { type PetStorePluginOptions, petStoreFrameworkErrors, petStorePlugin } from './plugin.js';
