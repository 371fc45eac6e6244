import {
  Catch,
  HttpException,
  Logger,
  type ArgumentsHost,
  type ExceptionFilter,
} from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import {
  DATABASE_RETRY_AFTER_SECONDS,
  databaseAvailability,
  DatabaseUnavailableError,
} from '#libs/database';
import { isDatabaseBusy } from './database-busy.js';
import { ValidationFailedError } from './validation-failed.error.js';

/** A domain error with a stable code, as the apps' domain errors are. */
export interface CodedError {
  readonly code: string;
  readonly message: string;
}

export const STATUS_OF_CODE: Readonly<Record<string, number>> = {
  validation: 422,
  bad_request: 400,
  unauthorized: 401,
  not_found: 404,
  conflict: 409,
  wrong_expected_position: 409,
  precondition: 412,
  // A read model that could not catch up with the log in time: retry later.
  projection_timeout: 503,
  // A read model stuck on an event it cannot apply (GET /ok names it): answered at once.
  projection_stuck: 503,
  // The database cannot be reached (GET /ok says so): answered with Retry-After.
  database_unavailable: 503,
};

function isCodedError(error: unknown): error is CodedError {
  return (
    error instanceof Error &&
    typeof (error as Partial<CodedError>).code === 'string' &&
    (error as unknown as CodedError).code in STATUS_OF_CODE
  );
}

interface FastifyClientError {
  statusCode: number;
  message: string;
}

/** Errors raised by Fastify itself for bad requests: unparsable JSON, unsupported media type. */
function isClientError(error: unknown): error is FastifyClientError {
  const status = (error as Partial<FastifyClientError> | null)?.statusCode;
  return typeof status === 'number' && status >= 400 && status < 500;
}

/**
 * Every error becomes JSON `{ "detail": ... }`: domain errors by their code, validation failures
 * as a list of `{loc, msg, type}`, anything unexpected as a 500 whose cause stays in the log.
 */
@Catch()
export class ProblemFilter implements ExceptionFilter {
  private readonly logger = new Logger('http');

  catch(error: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const [status, detail] = this.describe(error);
    if (reply.sent) return;
    for (const [name, value] of Object.entries(problemHeaders(detail))) {
      void reply.header(name, value);
    }
    void reply.status(status).header('content-type', 'application/json').send({ detail });
  }

  private describe(error: unknown): [number, unknown] {
    return describeProblem(error, (message) => {
      this.logger.error(message);
    });
  }
}

/**
 * The status and `detail` of an error, as the filter answers it; for routes registered on Fastify
 * directly, which Nest's filters do not reach. An unexpected error is logged and answered 500.
 */
export function describeProblem(
  error: unknown,
  logError: (message: string) => void,
): [number, unknown] {
  if (error instanceof ValidationFailedError) return [422, error.issues];
  // Checked first: a database out of connections answers, and is no outage.
  if (isDatabaseBusy(error)) return [503, DATABASE_BUSY];
  // An unreachable database is said once per outage (libs/database), not once per request.
  if (error instanceof DatabaseUnavailableError || databaseAvailability.noticeFailure(error)) {
    return [503, DATABASE_UNAVAILABLE];
  }
  if (isCodedError(error)) return [STATUS_OF_CODE[error.code] ?? 400, error.message];
  if (error instanceof HttpException) return [error.getStatus(), messageOf(error)];
  if (isClientError(error)) return [error.statusCode, error.message];
  logError(error instanceof Error ? (error.stack ?? error.message) : String(error));
  return [500, 'Internal server error'];
}

/** The `detail` of a 503 while the database cannot be reached (with `Retry-After`). */
export const DATABASE_UNAVAILABLE = new DatabaseUnavailableError().message;

/**
 * The `detail` of a 503 while the database refuses connections for want of room (its
 * `max_connections`, or the role's connection limit): says nothing of which role or database.
 */
export const DATABASE_BUSY =
  'The database has no free connection for this service right now (too many connections): ' +
  'retry in a few seconds';

/** The headers that go with a problem's answer: `Retry-After` when retrying in a moment helps. */
export function problemHeaders(detail: unknown): Record<string, string> {
  return detail === DATABASE_UNAVAILABLE || detail === DATABASE_BUSY
    ? { 'retry-after': String(DATABASE_RETRY_AFTER_SECONDS) }
    : {};
}

function messageOf(error: HttpException): unknown {
  const response = error.getResponse();
  if (typeof response === 'string') return response;
  const message = (response as { message?: unknown }).message;
  return message ?? error.message;
}
