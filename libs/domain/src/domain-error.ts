export type DomainErrorCode =
  'validation' | 'bad_request' | 'unauthorized' | 'not_found' | 'conflict' | 'precondition';

/** An expected failure with a stable code; the HTTP layer maps the code to a status. */
export class DomainError extends Error {
  constructor(
    readonly code: DomainErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export const notFound = (message: string): DomainError => new DomainError('not_found', message);
export const conflict = (message: string): DomainError => new DomainError('conflict', message);
export const badRequest = (message: string): DomainError => new DomainError('bad_request', message);
