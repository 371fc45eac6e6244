/**
 * A project directory that cannot be packed, or an archive that must not be extracted. Its message
 * is meant for the person deploying; the HTTP layer answers it with a 400.
 */
export class SourceArchiveError extends Error {
  readonly code = 'bad_request';

  constructor(message: string) {
    super(message);
    this.name = 'SourceArchiveError';
  }
}
