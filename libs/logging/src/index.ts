export * from './log-settings.js';
export * from './logger.js';
export * from './nest-logger.js';
export * from './request-context.js';
export * from './request-logging.js';
export * from './structured-line.js';
export * from './process-logger.js';
export * from './process-stop.js';
