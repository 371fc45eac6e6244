export * from './api-key.hook.js';
export * from './problem.filter.js';
export * from './validation.pipe.js';
export * from './validation-failed.error.js';
export * from './sse-response.js';
export * from './domain-error.js';
export * from './validate-each.js';
export * from './json-input.js';
