export * from './install-commands.js';
