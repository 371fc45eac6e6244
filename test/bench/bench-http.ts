/** What the benchmark asks of a server over HTTP: its address and headers, and the requests. */
export interface Target {
  readonly name: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
}

export const REQUEST_TIMEOUT_MS = 30_000;

/** Aborted by the benchmark's watchdog: every request listens to it. */
export const everything = new AbortController();

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export function deadline(timeoutMs: number): AbortSignal {
  return AbortSignal.any([everything.signal, AbortSignal.timeout(timeoutMs)]);
}

export function post(target: Target, path: string, body: unknown, timeoutMs = REQUEST_TIMEOUT_MS) {
  return fetch(`${target.url}${path}`, {
    method: 'POST',
    headers: { ...target.headers, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: deadline(timeoutMs),
  });
}

export async function json(response: Response, what: string): Promise<unknown> {
  if (!response.ok) {
    const text = await response.text().catch(() => '');
    throw new HttpError(response.status, `${what}: HTTP ${response.status} ${text.slice(0, 300)}`);
  }
  return response.json();
}

export function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null
    ? (value as Record<string, unknown>)[key]
    : undefined;
}

export function stringField(value: unknown, key: string, what: string): string {
  const found = field(value, key);
  if (typeof found !== 'string') throw new Error(`${what}: no ${key} in ${JSON.stringify(value)}`);
  return found;
}

export async function createThread(target: Target): Promise<string> {
  const thread = await json(await post(target, '/threads', {}), `${target.name} POST /threads`);
  return stringField(thread, 'thread_id', `${target.name} POST /threads`);
}
