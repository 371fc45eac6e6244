import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { Logger } from '@nestjs/common';
import type { CustomRoutes } from '../application/application.js';
import { bufferedBody, type InProcessRequest } from './in-process-dispatch.js';

/** What Berth uses of a Hono app: the application's own copy of Hono, never Berth's. */
interface HonoApp {
  fetch(request: Request, env?: unknown): Response | Promise<Response>;
  route(path: string, app: HonoApp): HonoApp;
  all(path: string, handler: (c: HonoContext) => Promise<Response>): HonoApp;
  onError(handler: (error: unknown) => Response): HonoApp;
  readonly routes: readonly unknown[];
  readonly getPath?: unknown;
}

interface HonoContext {
  readonly env: unknown;
  readonly req: { readonly raw: Request; arrayBuffer(): Promise<ArrayBuffer> };
}

/** Berth's routes, for the request that reached the end of the application's middleware. */
export type BerthRoutes = (request: Omit<InProcessRequest, 'signal'>) => Promise<Response>;

const CONTINUATION = Symbol('berth.continuation');

interface Continuation {
  readonly original: Request;
  readonly berth: BerthRoutes;
}

const logger = new Logger('http.app');

export function isHonoApp(app: CustomRoutes): app is CustomRoutes & HonoApp {
  const candidate = app as Partial<HonoApp>;
  return (
    typeof candidate.route === 'function' &&
    typeof candidate.all === 'function' &&
    typeof candidate.onError === 'function' &&
    Array.isArray(candidate.routes)
  );
}

/**
 * The request as the application's middleware leaves it: its URL and headers, and its body as the
 * app last had it. A body read through Hono comes from Hono's cache (a parsed JSON object it
 * changed, changed), one replaced (`c.req.raw = new Request(...)`) is the new one, and one nobody
 * touched streams on unread.
 */
async function forwardedRequest(
  c: HonoContext,
  original: Request,
): Promise<Omit<InProcessRequest, 'signal'>> {
  const raw = c.req.raw;
  const url = new URL(raw.url);
  if (raw.bodyUsed) {
    const headers = new Headers(raw.headers);
    headers.delete('content-length');
    headers.delete('transfer-encoding');
    return { method: raw.method, url, headers, body: Buffer.from(await c.req.arrayBuffer()) };
  }
  if (raw !== original) return { method: raw.method, url, ...(await bufferedBody(raw)) };
  const body = raw.body ? Readable.fromWeb(raw.body as WebReadableStream<Uint8Array>) : undefined;
  return { method: raw.method, url, headers: new Headers(raw.headers), body };
}

function failure(error: unknown): Response {
  const answer = (error as { getResponse?: unknown } | null)?.getResponse;
  // An HTTPException (of whichever copy of Hono) says its own answer.
  if (typeof answer === 'function') return (answer as () => Response).call(error);
  const reason = error instanceof Error ? error.message : String(error);
  logger.error(error instanceof Error ? (error.stack ?? reason) : reason);
  return Response.json({ detail: `The application's HTTP app failed: ${reason}` }, { status: 500 });
}

function mounted(app: HonoApp): HonoApp {
  const Hono = app.constructor as new (options?: { getPath?: unknown }) => HonoApp;
  const whole = new Hono(typeof app.getPath === 'function' ? { getPath: app.getPath } : {});
  whole.route('/', app);
  whole.all('*', async (c) => {
    const continuation = (c.env as Record<symbol, Continuation | undefined>)[CONTINUATION];
    if (!continuation) throw new Error('Berth: no route to continue to');
    return continuation.berth(await forwardedRequest(c, continuation.original));
  });
  whole.onError(failure);
  return whole;
}

const mountedApps = new WeakMap<HonoApp, HonoApp>();

/**
 * The application's Hono app with Berth's routes mounted inside it, as `langgraph dev` does: its
 * middleware runs around every request, its routes answer first (a route of its own shadows
 * Berth's), and a request none of them answers goes on to Berth — an unknown path is Berth's
 * 404, whatever not-found handler the app has. A throw anywhere in the app is a JSON 500 for
 * that request (an HTTPException, its own answer).
 */
export async function throughApplication(
  app: HonoApp,
  request: Request,
  berth: BerthRoutes,
): Promise<Response> {
  let whole = mountedApps.get(app);
  if (!whole) {
    whole = mounted(app);
    mountedApps.set(app, whole);
  }
  const continuation: Continuation = { original: request, berth };
  try {
    return await whole.fetch(request, { [CONTINUATION]: continuation });
  } catch (error) {
    return failure(error);
  }
}
