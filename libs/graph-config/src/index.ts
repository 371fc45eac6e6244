export * from './graph-config-error.js';
export * from './graph-specs.js';
export * from './graph-config-file.js';
