export * from './deploy-client.js';
export * from './sse.js';
