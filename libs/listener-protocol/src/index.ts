export * from './listener-protocol.js';
