import type { Type } from '@nestjs/common';
import { createValidationPipe } from './validation.pipe.js';
import { ValidationFailedError } from './validation-failed.error.js';

/**
 * Validates a body that is a list of DTOs, item by item, as the global pipe validates one; a
 * failing item's `loc` names its index.
 */
export async function validateEach<T extends object>(body: unknown, item: Type<T>): Promise<T[]> {
  if (!Array.isArray(body)) {
    throw new ValidationFailedError([{ loc: ['body'], msg: 'must be a list', type: 'isArray' }]);
  }
  const pipe = createValidationPipe();
  const issues: ValidationFailedError['issues'] = [];
  const items: T[] = [];
  for (const [index, value] of body.entries()) {
    try {
      items.push((await pipe.transform(value, { type: 'body', metatype: item })) as T);
    } catch (error) {
      if (!(error instanceof ValidationFailedError)) throw error;
      issues.push(
        ...error.issues.map((issue) => ({ ...issue, loc: ['body', index, ...issue.loc.slice(1)] })),
      );
    }
  }
  if (issues.length > 0) throw new ValidationFailedError(issues);
  return items;
}
