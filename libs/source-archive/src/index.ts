export * from './extract-archive.js';
export * from './pack-directory.js';
export * from './source-archive.error.js';
export * from './entry-counter.js';
export * from './cache-directory-tag.js';
export type { LeftOutEntry } from './list-project-files.js';
