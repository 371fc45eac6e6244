import type { LoggerService } from '@nestjs/common';
import type { Logger } from 'pino';
import { databaseAvailability } from '#libs/database';

/** Nest's own start-up chatter: a debugging aid, not news. */
const FRAMEWORK_CONTEXTS = new Set([
  'NestFactory',
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
  'NestApplication',
]);

function contextOf(params: unknown[]): string | undefined {
  const last = params.at(-1);
  return typeof last === 'string' ? last : undefined;
}

function textOf(message: unknown): string {
  if (message instanceof Error) return message.stack ?? message.message;
  return typeof message === 'string' ? message : JSON.stringify(message);
}

/** Nest's logger, writing to the process's structured log. */
export class StructuredNestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, ...params: unknown[]): void {
    const context = contextOf(params);
    const level = context && FRAMEWORK_CONTEXTS.has(context) ? 'debug' : 'info';
    this.logger[level]({ context }, textOf(message));
  }

  error(message: unknown, ...params: unknown[]): void {
    const context = contextOf(params);
    const trace = params.length > 1 && typeof params[0] === 'string' ? params[0] : undefined;
    const text = textOf(message);
    // An error that only says the database cannot be reached is the outage, which is said once
    // (libs/database): each request, run or poll that meets it is a detail for debugging.
    const level = databaseAvailability.noticeFailure(message) ? 'debug' : 'error';
    this.logger[level]({ context, ...(trace ? { stack: trace } : {}) }, text);
  }

  warn(message: unknown, ...params: unknown[]): void {
    this.logger.warn({ context: contextOf(params) }, textOf(message));
  }

  debug(message: unknown, ...params: unknown[]): void {
    this.logger.debug({ context: contextOf(params) }, textOf(message));
  }

  verbose(message: unknown, ...params: unknown[]): void {
    this.logger.trace({ context: contextOf(params) }, textOf(message));
  }

  fatal(message: unknown, ...params: unknown[]): void {
    this.logger.fatal({ context: contextOf(params) }, textOf(message));
  }
}
