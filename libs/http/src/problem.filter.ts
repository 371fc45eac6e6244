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
  /** A `rejected` error's own status. */
  readonly status?: unknown;
}

export const STATUS_OF_CODE: Readonly<Record<string, number>> = {
  validation: 422,
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  wrong_expected_position: 409,
  precondition: 412,
  payload_too_large: 413,
  not_implemented: 501,
  unavailable: 503,
  // The status is the error's own: an application's auth handler chose it.
  rejected: 400,
  // A read model that could not catch up with the log in time: retry later.
  projection_timeout: 503,
  // A read model stuck on an event it cannot apply (GET /ok names it): answered at once.
  projection_stuck: 503,
  // The database cannot be reached (GET /ok says so): answered with Retry-After.
  database_unavailable: 503,
};

/** A refusal (an error with a known code, a `DomainError` above all), not a fault. */
export function isRefusal(error: unknown): error is Error & CodedError {
  return (
    error instanceof Error &&
    typeof (error as Partial<CodedError>).code === 'string' &&
    (error as unknown as CodedError).code in STATUS_OF_CODE
  );
}

/**
 * The HTTP status of a refusal (an error with a known code), whatever transport tells it;
 * undefined for anything else, which is a fault.
 */
export function refusalStatusOf(error: unknown): number | undefined {
  if (!isRefusal(error)) return undefined;
  if (error.code === 'rejected' && typeof error.status === 'number') return error.status;
  return STATUS_OF_CODE[error.code];
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
  const refused = refusalStatusOf(error);
  if (refused !== undefined) return [refused, (error as Error).message];
  // Controllers, pipes and Nest's router still speak in Nest's exceptions.
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
