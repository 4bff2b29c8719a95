export { type ClientErrorHandlerOptions, installClientErrorHandler } from '@petstore/node';
export { type PetStoreRouter, type PetStoreRouterOptions, petStoreRouter } from './router.js';
