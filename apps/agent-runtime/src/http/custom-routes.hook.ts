import type { OutgoingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendRefusal } from '#libs/http';
import type { CustomRoutes } from '../application/application.js';
import type { RouteGroup } from '../graphs/graph-config-sections.js';
import { webRequestOf } from '../common/web-request.js';
import { isHonoApp, throughApplication, type BerthRoutes } from './application-pipeline.js';
import { dispatchInProcess } from './in-process-dispatch.js';
import type { InProcessGrants } from './in-process-grants.js';

/** Which of Berth's route groups a path belongs to; `/ok` is Berth's own health check, always served. */
export function routeGroupOf(path: string): RouteGroup | undefined {
  const under = (prefix: string): boolean => path === prefix || path.startsWith(`${prefix}/`);
  if (/^\/threads\/[^/]+\/runs(\/|$)/.test(path) || under('/runs')) return 'runs';
  if (under('/threads')) return 'threads';
  if (under('/assistants')) return 'assistants';
  if (under('/store')) return 'store';
  if (path === '/info') return 'meta';
  if (under('/a2a') || path === '/.well-known/agent-card.json') return 'a2a';
  if (path === '/mcp') return 'mcp';
  if (under('/ui')) return 'ui';
  return undefined;
}

async function sendWebResponse(reply: FastifyReply, response: Response): Promise<void> {
  const headers: OutgoingHttpHeaders = { ...(reply.getHeaders() as OutgoingHttpHeaders) };
  response.headers.forEach((value, name) => {
    if (name !== 'set-cookie') headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers['set-cookie'] = cookies;
  reply.hijack();
  reply.raw.writeHead(response.status, headers);
  if (!response.body) {
    reply.raw.end();
    return;
  }
  await pipeline(Readable.fromWeb(response.body), reply.raw).catch(() => {
    reply.raw.destroy();
  });
}

export interface CustomRoutesOptions {
  /** The application's app as served now (it changes on reload). */
  readonly customRoutes: () => CustomRoutes | string | undefined;
  readonly disabled: ReadonlySet<RouteGroup>;
  readonly grants: InProcessGrants;
  /** Berth's own paths (health, OpenAPI, metrics): served by Berth alone, without a key. */
  readonly isPublic: (url: string) => boolean;
}

function turnedOff(group: RouteGroup): Response {
  return Response.json(
    { detail: `The ${group} routes are turned off by http.disable_${group}` },
    { status: 404 },
  );
}

/**
 * Berth's routes for a request that went through the application's middleware: handed over in
 * process, as the request it continues is authenticated; a group `http.disable_*` took away is
 * a 404.
 */
function berthRoutesFor(
  fastify: FastifyInstance,
  request: FastifyRequest,
  reply: FastifyReply,
  options: CustomRoutesOptions,
): BerthRoutes {
  return (forwarded) => {
    const group = routeGroupOf(forwarded.url.pathname);
    if (group !== undefined && options.disabled.has(group)) {
      return Promise.resolve(turnedOff(group));
    }
    const left = new AbortController();
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) left.abort();
    });
    return dispatchInProcess(
      fastify,
      options.grants,
      { kind: 'berth-route', auth: request.berthAuth },
      { ...forwarded, signal: left.signal },
    );
  };
}

async function answer(reply: FastifyReply, respond: () => Promise<Response>): Promise<void> {
  let response: Response;
  try {
    response = await respond();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    await reply.status(502).send({ detail: `The application's route failed: ${reason}` });
    return;
  }
  await sendWebResponse(reply, response);
}

/**
 * The application's own app (`http.app`), after the API key or the application's authentication:
 * - a Hono app wraps Berth's routes (see `throughApplication`): every request but a WebSocket
 *   upgrade and Berth's own public paths goes through its middleware and routes first;
 * - any other fetch handler is served beside Berth: a request that no route of Berth's answers,
 *   or that falls in a group `http.disable_*` took away, goes to it, body untouched.
 */
export function registerCustomRoutes(app: FastifyInstance, options: CustomRoutesOptions): void {
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    // Already through the application's app, on its way to Berth's route.
    if (request.berthInProcess?.kind === 'berth-route') return undefined;
    const custom = options.customRoutes();
    const upgrade = request.headers.upgrade !== undefined;
    if (
      typeof custom === 'object' &&
      isHonoApp(custom) &&
      !upgrade &&
      !options.isPublic(request.url)
    ) {
      await answer(reply, () =>
        throughApplication(
          custom,
          webRequestOf(request, true),
          berthRoutesFor(app, request, reply, options),
        ),
      );
      return reply;
    }
    const group = routeGroupOf(request.url.split('?')[0] ?? '');
    const isDisabled = group !== undefined && options.disabled.has(group);
    if (!request.is404 && !isDisabled) return undefined;
    if (custom === undefined) {
      if (!isDisabled) return undefined;
      await reply
        .status(404)
        .send({ detail: `The ${group} routes are turned off by http.disable_${group}` });
      return reply;
    }
    // An open path (`/info`) reached without credentials: only Berth's own route answers it.
    if (request.berthRefusal) return sendRefusal(reply, request.berthRefusal);
    if (typeof custom === 'string') {
      await reply
        .status(503)
        .send({ detail: `The application's routes are not served: ${custom}` });
      return reply;
    }
    await answer(reply, async () => custom.fetch(webRequestOf(request, true)));
    return reply;
  });
}
