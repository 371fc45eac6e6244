export * from './env-values.js';
