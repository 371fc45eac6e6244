import { PassThrough } from 'node:stream';
import type { ServerResponse } from 'node:http';
import { Injectable, Logger, type BeforeApplicationShutdown } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { DomainError } from '#libs/domain';

/**
 * How long an answer may keep its client waiting in silence: a wait still going after this has
 * its status and headers sent, then a newline this often until the JSON body (JSON allows
 * whitespace before a value, so every JSON parser, the SDK's included, reads it unchanged). Idle
 * timeouts (this server's and the control plane's 30 s, proxies', clients') never see a silent
 * connection, so a wait lasts as long as its run.
 */
export const WAIT_HEARTBEAT_MS = 5_000;
/** How long shutdown gives the waits' last words to reach their clients. */
const FAREWELL_MS = 2_000;

export interface WaitAnswer {
  /** Headers of the answer (`content-location`). */
  readonly headers: Readonly<Record<string, string>>;
  /** Where a client whose wait the runtime's shutdown cut can follow the run again. */
  readonly followAt: string;
}

type Outcome = { readonly value: unknown } | { readonly error: unknown };

const settle = (promise: Promise<unknown>): Promise<Outcome> =>
  promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );

const delay = (ms: number): Promise<'silent'> =>
  new Promise((resolve) => {
    setTimeout(() => {
      resolve('silent');
    }, ms).unref();
  });

function shutdownMessage(answer: WaitAnswer): string {
  return (
    'The runtime is shutting down before the run ended. The run is not lost (a run in progress ' +
    `goes back to the queue): follow it with GET ${answer.followAt}`
  );
}

/** Resolves once the response has gone out whole, or its connection is gone. */
function sent(raw: ServerResponse): Promise<void> {
  if (raw.writableFinished || raw.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    raw.once('finish', resolve);
    raw.once('close', resolve);
  });
}

/**
 * The answers of `runs/wait` and `join`, which last as long as their runs (minutes, bounded by
 * the run's timeout): kept alive while they wait, and told to their clients in JSON when the
 * runtime stops before the run ends.
 */
@Injectable()
export class RunWaits implements BeforeApplicationShutdown {
  private readonly logger = new Logger('runs');
  private closing = false;
  /** The waiters going on: one shared signal would gather a listener per wait. */
  private readonly waiting = new Set<AbortController>();
  private readonly answering = new Set<Promise<void>>();

  /**
   * Answers `reply` with the JSON of what `wait` resolves to. An answer within
   * `WAIT_HEARTBEAT_MS` is an ordinary one (an error is its status and `{detail}`); a longer one
   * is 200 at once, newlines while it waits, then the JSON (an error then is
   * `{detail, __error__: {error, message}}`, which the SDK raises). `wait`'s signal is aborted
   * when the client goes away or the runtime stops.
   */
  async answer(
    reply: FastifyReply,
    answer: WaitAnswer,
    wait: (signal: AbortSignal) => Promise<unknown>,
  ): Promise<void> {
    const answering = this.answerOnce(reply, answer, wait);
    const tracked = answering.catch(() => undefined);
    this.answering.add(tracked);
    try {
      await answering;
    } finally {
      this.answering.delete(tracked);
    }
  }

  /** The runtime stops: every wait still going says so, and the HTTP server closes after. */
  async beforeApplicationShutdown(): Promise<void> {
    this.closing = true;
    for (const stop of this.waiting) stop.abort();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(this.answering),
      new Promise((resolve) => (timer = setTimeout(resolve, FAREWELL_MS))),
    ]);
    clearTimeout(timer);
  }

  private async answerOnce(
    reply: FastifyReply,
    answer: WaitAnswer,
    wait: (signal: AbortSignal) => Promise<unknown>,
  ): Promise<void> {
    const stop = new AbortController();
    const interrupted = new Promise<'interrupted'>((resolve) => {
      stop.signal.addEventListener(
        'abort',
        () => {
          resolve('interrupted');
        },
        { once: true },
      );
    });
    const leave = (): void => {
      stop.abort();
    };
    reply.raw.once('close', leave);
    this.waiting.add(stop);
    if (this.closing) stop.abort();
    try {
      const outcome = settle(wait(stop.signal));
      const first = await Promise.race([outcome, interrupted, delay(WAIT_HEARTBEAT_MS)]);
      if (first === 'silent') {
        await this.keepAlive(reply, answer, outcome, interrupted);
        return;
      }
      if (first === 'interrupted' || stop.signal.aborted) {
        if (this.closing) {
          void reply
            .status(503)
            .type('application/json')
            .send(JSON.stringify({ detail: shutdownMessage(answer) }));
          await sent(reply.raw);
        }
        return;
      }
      if ('error' in first) throw first.error;
      void reply
        .status(200)
        .headers(answer.headers)
        .type('application/json')
        .send(JSON.stringify(first.value ?? null));
    } finally {
      reply.raw.off('close', leave);
      this.waiting.delete(stop);
    }
  }

  /** 200 now, a newline every `WAIT_HEARTBEAT_MS`, then the outcome's JSON. */
  private async keepAlive(
    reply: FastifyReply,
    answer: WaitAnswer,
    outcome: Promise<Outcome>,
    interrupted: Promise<'interrupted'>,
  ): Promise<void> {
    const body = new PassThrough();
    // A client gone takes the body with it; what is still written then goes nowhere.
    body.on('error', () => undefined);
    const write = (text: string): void => {
      if (!body.destroyed && !body.writableEnded) body.write(text);
    };
    void reply
      .status(200)
      .headers({ ...answer.headers, 'cache-control': 'no-cache', 'x-accel-buffering': 'no' })
      .type('application/json')
      .send(body);
    write('\n');
    const heartbeat = setInterval(() => {
      write('\n');
    }, WAIT_HEARTBEAT_MS);
    try {
      const last = await Promise.race([outcome, interrupted]);
      if (last === 'interrupted' && !this.closing) {
        body.destroy();
        return;
      }
      if (last !== 'interrupted' && 'value' in last) {
        body.end(JSON.stringify(last.value ?? null));
      } else {
        const [error, message] =
          last === 'interrupted'
            ? ['ServiceUnavailable', shutdownMessage(answer)]
            : this.describe(last.error);
        body.end(JSON.stringify({ detail: message, __error__: { error, message } }));
      }
      await sent(reply.raw);
    } finally {
      clearInterval(heartbeat);
    }
  }

  private describe(error: unknown): [string, string] {
    if (error instanceof DomainError) return [error.code, error.message];
    this.logger.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    return ['InternalServerError', 'Internal server error'];
  }
}
