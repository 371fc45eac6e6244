export {
  openPersistence,
  type AnyProjection,
  type Persistence,
  type PersistenceOptions,
} from './persistence.js';
export * from './read-model-freshness.js';
export * from './rebuild-projections.js';
export * from './persistence.module.js';
