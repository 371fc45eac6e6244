export * from './registry.js';
export * from './http-metrics.js';
export * from './event-store-metrics.js';
export * from './metrics.controller.js';
export * from './observe-server.js';
