/** A refusal or failure of the Kubernetes API, in one line: its status and its own message. */
export class KubeApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'KubeApiError';
  }

  /** A refusal that asking again does not mend (forbidden, invalid, not found...). */
  get permanent(): boolean {
    return this.status >= 400 && this.status < 500 && ![408, 409, 429].includes(this.status);
  }
}

function statusMessageOf(body: unknown): string | undefined {
  let value: unknown = body;
  if (typeof body === 'string') {
    try {
      value = JSON.parse(body);
    } catch {
      return body.split('\n')[0]?.slice(0, 500);
    }
  }
  const message = (value as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : undefined;
}

/**
 * The client's error, saying what was being done: an answer of the API made a KubeApiError that
 * carries its status message only (the client's own message repeats the whole response with its
 * headers, which have no place in a log or a report); no answer (the API server unreachable) an
 * Error of the moment.
 */
export function kubeApiErrorOf(error: unknown, doing: string): Error {
  const failed = error as { code?: unknown; body?: unknown } | null;
  if (typeof failed?.code !== 'number') {
    const message = error instanceof Error ? error.message : String(error);
    return new Error(`${doing}: ${message}`, { cause: error });
  }
  const message = statusMessageOf(failed.body) ?? `HTTP ${failed.code}`;
  return new KubeApiError(failed.code, `${doing}: ${message}`);
}

export const isNotFound = (error: unknown): boolean =>
  error instanceof KubeApiError && error.status === 404;
