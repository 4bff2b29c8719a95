export { type PetStoreFetchHandler, type PetStoreFetchOptions, petStoreFetch } from './handler.js';
