import { request } from 'node:http';
import { Logger } from '@nestjs/common';
import { RunObserver, type FinishedRun } from '../run-records/run-observers.js';

/** One finished run as the tracing endpoint receives it, in `{"runs": [...]}`. */
export interface RunTrace {
  readonly run_id: string;
  /** Null for a stateless run (its thread is temporary). */
  readonly thread_id: string | null;
  readonly assistant_id: string;
  readonly status: FinishedRun['finished']['status'];
  readonly created_at: string;
  /** Null for a run cancelled before it started. */
  readonly started_at: string | null;
  readonly finished_at: string;
  /** The attempt that finished it: 0 for a run cancelled before any attempt. */
  readonly attempt: number;
}

export function runTraceOf(run: FinishedRun): RunTrace {
  return {
    run_id: run.created.run_id,
    thread_id: run.created.kwargs.temporary ? null : run.created.thread_id,
    assistant_id: run.created.assistant_id,
    status: run.finished.status,
    created_at: run.created.created_at,
    started_at: run.startedAt,
    finished_at: run.finished.finished_at,
    attempt: run.finished.attempt,
  };
}

export interface RunTraceReporterOptions {
  /** An absolute http(s) URL. */
  readonly endpoint: string;
  /** Sent as `Authorization: Bearer <token>`; never logged. */
  readonly token: string;
  /** A Unix socket that reaches the endpoint's host (a jailed runtime's); else the URL's own. */
  readonly socket?: string;
  /** How long a run waits for others to go in the same POST. */
  readonly flushDelayMs?: number;
  /** Runs per POST; this many waiting are sent at once. */
  readonly batchSize?: number;
  /** Runs kept while the endpoint cannot take them; beyond it the oldest are dropped. */
  readonly maxPending?: number;
  /** The first retry's delay; each failure doubles it, up to `retryMaxMs`. */
  readonly retryBaseMs?: number;
  readonly retryMaxMs?: number;
  readonly requestTimeoutMs?: number;
  /** How long `close` waits for what is pending to be sent. */
  readonly closeTimeoutMs?: number;
  readonly logger?: { warn(message: string): void };
}

interface Pending {
  readonly seq: number;
  readonly trace: RunTrace;
}

type PostResult =
  | { readonly kind: 'sent' }
  /** The endpoint refused the batch itself: sending it again would not help. */
  | { readonly kind: 'refused'; readonly status: number }
  | { readonly kind: 'failed'; readonly reason: string };

/** Statuses that say the batch itself is wrong: it is dropped instead of retried. */
const REFUSED_STATUSES = new Set([400, 413, 422]);

/**
 * Reports every finished run to the tracing endpoint: gathers runs for a short while (or until a
 * batch is full) and POSTs them as `{"runs": [...]}`, one POST at a time, in order. A POST that
 * fails is retried with capped exponential back-off while new runs wait behind it, at most
 * `maxPending` of them. Reporting never blocks or fails a run; `close` sends what is left,
 * waiting a bounded time.
 */
export class RunTraceReporter extends RunObserver {
  private readonly endpoint: string;
  private readonly token: string;
  private readonly flushDelayMs: number;
  private readonly batchSize: number;
  private readonly maxPending: number;
  private readonly retryBaseMs: number;
  private readonly retryMaxMs: number;
  private readonly requestTimeoutMs: number;
  private readonly closeTimeoutMs: number;
  private readonly logger: { warn(message: string): void };
  /** Where runs go, for log lines: without credentials, query or fragment. */
  private readonly target: string;

  private pending: Pending[] = [];
  private nextSeq = 0;
  private timer: NodeJS.Timeout | undefined;
  private sending: Promise<void> | undefined;
  private readonly inFlight = new AbortController();
  private failures = 0;
  private dropping = false;
  private closing = false;
  private closed = false;
  private idleWaiters: (() => void)[] = [];

  private readonly socket: string | undefined;

  constructor(options: RunTraceReporterOptions) {
    super();
    this.endpoint = options.endpoint;
    this.socket = options.socket;
    this.token = options.token;
    this.flushDelayMs = options.flushDelayMs ?? 200;
    this.batchSize = options.batchSize ?? 100;
    this.maxPending = options.maxPending ?? 10_000;
    this.retryBaseMs = options.retryBaseMs ?? 500;
    this.retryMaxMs = options.retryMaxMs ?? 30_000;
    this.requestTimeoutMs = options.requestTimeoutMs ?? 10_000;
    this.closeTimeoutMs = options.closeTimeoutMs ?? 2_000;
    this.logger = options.logger ?? new Logger('run-tracing');
    const url = new URL(options.endpoint);
    this.target = `${url.origin}${url.pathname}`;
  }

  /** How many runs wait to be sent (with those of a POST in flight). */
  get pendingCount(): number {
    return this.pending.length;
  }

  override runFinished(run: FinishedRun): void {
    this.report(runTraceOf(run));
  }

  report(trace: RunTrace): void {
    if (this.closed) return;
    this.pending.push({ seq: this.nextSeq, trace });
    this.nextSeq += 1;
    const excess = this.pending.length - this.maxPending;
    if (excess > 0) {
      this.pending.splice(0, excess);
      if (!this.dropping) {
        this.dropping = true;
        this.logger.warn(
          `More than ${this.maxPending} finished runs wait to be reported to ${this.target}: ` +
            'dropping the oldest',
        );
      }
    }
    this.schedule();
  }

  /** Sends what is pending, waiting at most `timeoutMs`; then reports nothing more. */
  override async close(timeoutMs = this.closeTimeoutMs): Promise<void> {
    if (this.closed) return;
    this.closing = true;
    // No back-off wait left: the next POST goes now.
    this.clearTimer();
    this.startSending();
    let deadline: NodeJS.Timeout | undefined;
    await Promise.race([
      this.idle(),
      new Promise<void>((resolve) => {
        deadline = setTimeout(resolve, timeoutMs);
      }),
    ]);
    clearTimeout(deadline);
    this.closed = true;
    this.clearTimer();
    this.inFlight.abort();
    if (this.pending.length > 0) {
      this.logger.warn(
        `${this.pending.length} finished runs were not reported to ${this.target} before shutdown`,
      );
      this.pending = [];
    }
    this.notifyIdle();
  }

  private schedule(): void {
    if (this.sending !== undefined || this.closed || this.pending.length === 0) return;
    const due = this.pending.length >= this.batchSize || this.closing;
    if (this.failures === 0 && due) {
      this.clearTimer();
      this.startSending();
      return;
    }
    if (this.timer !== undefined) return;
    const delay = this.failures === 0 ? this.flushDelayMs : this.backoffMs();
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.startSending();
    }, delay);
    this.timer.unref();
  }

  private backoffMs(): number {
    const exponential = this.retryBaseMs * 2 ** Math.min(this.failures - 1, 30);
    const capped = Math.min(exponential, this.retryMaxMs);
    // Closing: retry soon, within the time `close` waits.
    return this.closing ? Math.min(capped, 250) : capped;
  }

  private startSending(): void {
    if (this.sending !== undefined || this.closed || this.pending.length === 0) return;
    this.sending = this.sendBatch().finally(() => {
      this.sending = undefined;
      this.schedule();
      if (this.pending.length === 0) this.notifyIdle();
    });
  }

  private async sendBatch(): Promise<void> {
    const batch = this.pending.slice(0, this.batchSize);
    const last = batch.at(-1)?.seq ?? -1;
    const result = await this.post(batch.map((item) => item.trace));
    if (this.closed) return;
    if (result.kind === 'failed') {
      this.failures += 1;
      if (this.failures === 1 || this.failures % 20 === 0) {
        this.logger.warn(
          `Reporting ${batch.length} finished runs to ${this.target} failed ` +
            `(${result.reason}, failure ${this.failures}): retrying`,
        );
      }
      return;
    }
    if (result.kind === 'refused') {
      this.logger.warn(
        `${this.target} refused ${batch.length} finished runs with HTTP ${result.status}: dropped`,
      );
    }
    this.failures = 0;
    // Those of the batch that are still pending (the oldest may have been dropped meanwhile).
    let sent = 0;
    while (sent < this.pending.length && (this.pending[sent]?.seq ?? Infinity) <= last) sent += 1;
    this.pending.splice(0, sent);
    if (this.pending.length === 0) this.dropping = false;
  }

  private async post(runs: readonly RunTrace[]): Promise<PostResult> {
    try {
      const headers = {
        'content-type': 'application/json',
        authorization: `Bearer ${this.token}`,
      };
      const body = JSON.stringify({ runs });
      const signal = AbortSignal.any([
        this.inFlight.signal,
        AbortSignal.timeout(this.requestTimeoutMs),
      ]);
      const status = this.socket
        ? await postThrough(this.socket, this.endpoint, headers, body, signal)
        : await fetch(this.endpoint, { method: 'POST', headers, body, signal }).then(
            async (response) => {
              // Read the answer to the end, so the connection can be reused.
              await response.arrayBuffer().catch(() => undefined);
              return response.status;
            },
          );
      if (status >= 200 && status < 300) return { kind: 'sent' };
      if (REFUSED_STATUSES.has(status)) return { kind: 'refused', status };
      return { kind: 'failed', reason: `HTTP ${status}` };
    } catch (error) {
      return { kind: 'failed', reason: describe(error) };
    }
  }

  private idle(): Promise<void> {
    if (this.pending.length === 0 && this.sending === undefined) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private notifyIdle(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }

  private clearTimer(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }
}

/** An error's message and its cause's (fetch puts the reason there), never a request's headers. */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}

/** POSTs `body` to the URL's path through a Unix socket; resolves with the answer's status. */
function postThrough(
  socketPath: string,
  endpoint: string,
  headers: Record<string, string>,
  body: string,
  signal: AbortSignal,
): Promise<number> {
  const url = new URL(endpoint);
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        socketPath,
        method: 'POST',
        path: `${url.pathname}${url.search}`,
        headers: { ...headers, host: url.host, 'content-length': Buffer.byteLength(body) },
        signal,
      },
      (answer) => {
        answer.resume();
        answer.on('end', () => {
          resolve(answer.statusCode ?? 0);
        });
        answer.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}
