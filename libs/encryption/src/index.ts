export * from './aes-gcm.js';
export * from './master-key.js';
export * from './key-wrap.js';
export * from './data-key-store.js';
export * from './data-key-cache.js';
export * from './sealed-fields.js';
export * from './json-keys.js';
export * from './key-wrapper.js';
