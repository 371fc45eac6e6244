import { ValidationPipe, type ValidationError } from '@nestjs/common';
import { ValidationFailedError, type ValidationIssue } from './validation-failed.error.js';

function issuesOf(errors: ValidationError[], path: (string | number)[]): ValidationIssue[] {
  return errors.flatMap((error) => {
    const loc = [...path, error.property];
    const own = Object.entries(error.constraints ?? {}).map(([type, msg]) => ({ loc, msg, type }));
    return [...own, ...issuesOf(error.children ?? [], loc)];
  });
}

/** class-validator over request bodies and queries, failing with the HTTPValidationError shape. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    transform: true,
    whitelist: true,
    forbidUnknownValues: false,
    exceptionFactory: (errors) => new ValidationFailedError(issuesOf(errors, ['body'])),
  });
}
