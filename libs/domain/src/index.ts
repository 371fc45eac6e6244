export * from './domain-error.js';
export * from './decider.js';
export * from './decider-specification.js';
export * from './field-rules.js';
