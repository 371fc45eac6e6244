export * from './extract-archive.js';
export * from './pack-directory.js';
export * from './source-archive.error.js';
export * from './entry-counter.js';
