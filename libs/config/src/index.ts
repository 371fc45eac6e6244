export * from './env-values.js';
export * from './version.js';
export * from './exit-codes.js';
export * from './cannot-start.js';
export * from './command-args.js';
