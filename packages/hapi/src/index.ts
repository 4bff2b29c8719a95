export { type PetStorePluginOptions, petStorePlugin } from './plugin.js';
