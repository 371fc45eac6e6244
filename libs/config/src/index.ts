export * from './env-values.js';
export * from './version.js';
