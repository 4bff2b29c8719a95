export * from './testing/storage-contract.js';
