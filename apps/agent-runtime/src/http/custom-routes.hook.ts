import type { OutgoingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { CustomRoutes } from '../application/application.js';
import type { RouteGroup } from '../graphs/graph-config-sections.js';
import { webRequestOf } from '../common/web-request.js';

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

/**
 * The application's own routes beside Berth's: a request that no route of Berth's answers, or
 * that falls in a group `http.disable_*` took away, goes to the application's app, body
 * untouched. Berth's routes win on conflict unless their group is disabled. Runs after the API
 * key check.
 */
export function registerCustomRoutes(
  app: FastifyInstance,
  customRoutes: () => CustomRoutes | string | undefined,
  disabled: ReadonlySet<RouteGroup>,
): void {
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const custom = customRoutes();
    const group = routeGroupOf(request.url.split('?')[0] ?? '');
    const isDisabled = group !== undefined && disabled.has(group);
    if (!request.is404 && !isDisabled) return undefined;
    if (custom === undefined) {
      if (!isDisabled) return undefined;
      await reply
        .status(404)
        .send({ detail: `The ${group} routes are turned off by http.disable_${group}` });
      return reply;
    }
    if (typeof custom === 'string') {
      await reply
        .status(503)
        .send({ detail: `The application's routes are not served: ${custom}` });
      return reply;
    }
    let response: Response;
    try {
      response = await custom.fetch(webRequestOf(request, true));
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      await reply.status(502).send({ detail: `The application's route failed: ${reason}` });
      return reply;
    }
    await sendWebResponse(reply, response);
    return reply;
  });
}
