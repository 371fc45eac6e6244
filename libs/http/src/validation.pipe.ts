import { ValidationPipe, type ArgumentMetadata, type ValidationError } from '@nestjs/common';
import { ValidationFailedError, type ValidationIssue } from './validation-failed.error.js';

function issuesOf(errors: ValidationError[], path: (string | number)[]): ValidationIssue[] {
  return errors.flatMap((error) => {
    // class-validator names an array element by its index as a string; loc keeps it a number.
    const step = /^\d+$/.test(error.property) ? Number(error.property) : error.property;
    const loc = [...path, step];
    const own = Object.entries(error.constraints ?? {}).map(([type, msg]) => ({ loc, msg, type }));
    return [...own, ...issuesOf(error.children ?? [], loc)];
  });
}

const LOCATION: Readonly<Record<ArgumentMetadata['type'], string>> = {
  body: 'body',
  query: 'query',
  param: 'path',
  custom: 'body',
};

/** Names where a failing value came from (body, query or path) as the first part of its `loc`. */
class LocatedValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    try {
      return (await super.transform(value, metadata)) as unknown;
    } catch (error) {
      if (!(error instanceof ValidationFailedError)) throw error;
      const where = LOCATION[metadata.type];
      throw new ValidationFailedError(
        error.issues.map((issue) => ({ ...issue, loc: [where, ...issue.loc.slice(1)] })),
      );
    }
  }
}

/**
 * class-validator over request bodies and queries, failing with the HTTPValidationError shape.
 * `refuseUnknownFields`: a field no DTO declares is a 422 naming it, instead of being dropped.
 */
export function createValidationPipe(
  options: { refuseUnknownFields?: boolean } = {},
): ValidationPipe {
  return new LocatedValidationPipe({
    transform: true,
    whitelist: true,
    forbidNonWhitelisted: options.refuseUnknownFields ?? false,
    forbidUnknownValues: false,
    exceptionFactory: (errors) => new ValidationFailedError(issuesOf(errors, ['body'])),
  });
}
