export {
  openPersistence,
  type AnyProjection,
  type Persistence,
  type PersistenceOptions,
} from './persistence.js';
export * from './connection-budget.js';
export * from './read-model-freshness.js';
export * from './projection-health.js';
export * from './process-health.js';
export * from './rebuild-projections.js';
export * from './persistence.module.js';
