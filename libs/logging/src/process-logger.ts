import { Logger as NestLogger } from '@nestjs/common';
import { logSettingsFrom } from './log-settings.js';
import { createLogger, type Logger } from './logger.js';
import { StructuredNestLogger } from './nest-logger.js';

/**
 * The logger of a server process, set up from its environment; Nest's loggers, the static ones
 * included, write through it.
 */
export function openProcessLogger(service: string): {
  readonly logger: Logger;
  readonly nestLogger: StructuredNestLogger;
} {
  const logger = createLogger(service, logSettingsFrom(process.env, process.stdout.isTTY));
  const nestLogger = new StructuredNestLogger(logger);
  NestLogger.overrideLogger(nestLogger);
  return { logger, nestLogger };
}
