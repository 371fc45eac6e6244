import { Injectable, type BeforeApplicationShutdown } from '@nestjs/common';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** What a client refused while the server drains waits before it tries again (`Retry-After`). */
export const DRAIN_RETRY_AFTER_SECONDS = 2;
/** How long the drain gives the open streams' last events to reach their clients. */
const FAREWELL_MS = 2_000;
/**
 * The least a drain lasts before the port closes: a request that arrives meanwhile (on a
 * proxy's kept-alive connection too) gets a 503 to retry instead of a reset connection (a 502).
 * It overlaps what the stop does anyway (the workers hand their runs back).
 */
export const DRAIN_MIN_MS = 1_000;

const STOPPING =
  'The server is shutting down: retry in a moment (another replica, or this one once restarted, ' +
  'will answer)';

/**
 * The stop of a server, before it closes its port: from `begin()` on, new requests are answered
 * 503 with `Retry-After` (`refuseWhileDraining`), and each open SSE stream (`sendSse` with this
 * drain) sends a last event saying where to resume and ends cleanly, instead of being cut when the
 * server closes its connections.
 */
@Injectable()
export class HttpDrain implements BeforeApplicationShutdown {
  private readonly stopping = new AbortController();
  private readonly open = new Set<Promise<void>>();
  private began = 0;

  /** Aborted when the drain begins. */
  get signal(): AbortSignal {
    return this.stopping.signal;
  }

  get draining(): boolean {
    return this.stopping.signal.aborted;
  }

  /** A stream (or anything else) the drain waits for, at most `FAREWELL_MS`. */
  track(ending: Promise<void>): void {
    const tracked = ending.catch(() => undefined);
    this.open.add(tracked);
    void tracked.finally(() => this.open.delete(tracked));
  }

  /** Refuses new requests from now on; resolves once the open streams said goodbye (or gave up). */
  async begin(): Promise<void> {
    if (!this.draining) this.began = Date.now();
    this.stopping.abort();
    await Promise.race([Promise.all(this.open), delay(FAREWELL_MS)]);
  }

  /** The HTTP server closes after this: not before the drain has lasted `DRAIN_MIN_MS`. */
  async beforeApplicationShutdown(): Promise<void> {
    if (!this.draining) return;
    await delay(this.began + DRAIN_MIN_MS - Date.now());
  }
}

function delay(ms: number): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/**
 * While `drain` drains, every request is answered 503 with `Retry-After` and `Connection: close`
 * (a proxy's kept-alive connection to this server is not reused), `{detail}`; `GET /ok` says
 * `ok: false` the same way, so that load balancers stop sending. Register it after CORS (a
 * browser can read the answer) and before authentication.
 */
export function refuseWhileDraining(app: FastifyInstance, drain: HttpDrain): void {
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    if (!drain.draining) return undefined;
    const health = request.url === '/ok' || request.url.startsWith('/ok?');
    await reply
      .status(503)
      .header('retry-after', String(DRAIN_RETRY_AFTER_SECONDS))
      .header('connection', 'close')
      .send(health ? { ok: false, detail: STOPPING } : { detail: STOPPING });
    return reply;
  });
}
