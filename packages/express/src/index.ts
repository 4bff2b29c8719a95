export { type PetStoreRouter, type PetStoreRouterOptions, petStoreRouter } from './router.js';
