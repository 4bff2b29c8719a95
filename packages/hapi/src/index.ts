export { type ClientErrorHandlerOptions, installClientErrorHandler } from '@petstore/node';
export { type PetStorePluginOptions, petStorePlugin } from './plugin.js';
