export type DomainErrorCode =
  | 'validation'
  | 'bad_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'precondition'
  | 'payload_too_large'
  | 'unavailable'
  | 'not_implemented'
  /** Refused with a status the application chose (its auth handler's `HTTPException`). */
  | 'rejected';

/**
 * An expected failure with a stable code: every refusal of the apps' services is one, and each
 * transport maps the code once (HTTP's problem filter, v2's protocol errors, MCP and A2A).
 */
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
export const forbidden = (message: string): DomainError => new DomainError('forbidden', message);
export const unavailable = (message: string): DomainError =>
  new DomainError('unavailable', message);
export const payloadTooLarge = (message: string): DomainError =>
  new DomainError('payload_too_large', message);
