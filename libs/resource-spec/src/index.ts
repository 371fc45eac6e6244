export * from './resource-spec.js';
