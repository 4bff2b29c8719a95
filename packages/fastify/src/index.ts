export { type PetStorePluginOptions, petStoreFrameworkErrors, petStorePlugin } from './plugin.js';
