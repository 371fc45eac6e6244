import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { describeProblem, problemHeaders } from '#libs/http';
import { authInfoOf, ownerOf } from './mcp-caller.js';
import { McpSessions, type McpSession } from './mcp-sessions.js';

export const MCP_PATH = '/mcp';
const JSON_TYPE = { 'content-type': 'application/json; charset=utf-8' };

const isInitialization = (body: unknown): boolean =>
  Array.isArray(body)
    ? body.some((message) => isInitializeRequest(message))
    : isInitializeRequest(body);

/** A refusal of the Streamable HTTP transport, in its JSON-RPC shape (as the SDK's own). */
async function refuse(reply: FastifyReply, status: number, code: number, message: string) {
  await reply.status(status).send({ jsonrpc: '2.0', error: { code, message }, id: null });
  return reply;
}

/** The session a request belongs to, or a new one for an initialize request without one. */
async function sessionOf(
  sessions: McpSessions,
  request: FastifyRequest,
): Promise<McpSession | 'unknown' | 'missing'> {
  const owner = ownerOf(request.berthAuth);
  const id = request.headers['mcp-session-id'];
  if (typeof id === 'string') return sessions.find(id, owner) ?? 'unknown';
  if (request.method === 'POST' && isInitialization(request.body)) return sessions.open(owner);
  return 'missing';
}

/**
 * MCP at `/mcp` over Streamable HTTP, with sessions: POST carries JSON-RPC, GET opens the
 * session's SSE stream, DELETE ends it. The API key or the application's authentication has
 * run before (its hooks guard every route); the transport writes to the raw response.
 */
export function serveMcp(app: NestFastifyApplication): void {
  const sessions = app.get(McpSessions);
  const fastify = app.getHttpAdapter().getInstance();
  fastify.route({
    method: ['GET', 'POST', 'DELETE'],
    url: MCP_PATH,
    handler: async (request, reply) => {
      const session = await sessionOf(sessions, request);
      if (session === 'unknown') return refuse(reply, 404, -32001, 'Session not found');
      if (session === 'missing') {
        return refuse(reply, 400, -32000, 'Bad Request: No valid session ID provided');
      }
      // What the hooks set (CORS) goes out with the transport's own headers.
      for (const [name, value] of Object.entries(reply.getHeaders())) {
        if (value !== undefined) reply.raw.setHeader(name, value);
      }
      reply.hijack();
      const raw = Object.assign(request.raw, { auth: authInfoOf(request.berthAuth) });
      await sessions.handle(session, raw, reply.raw, request.body).catch(() => {
        if (reply.raw.headersSent) reply.raw.destroy();
        else reply.raw.writeHead(500, JSON_TYPE).end('{"detail":"Internal server error"}');
      });
      return reply;
    },
    // A body that is not JSON, not of a JSON type, or refused by the input checks (NUL, lone
    // surrogates, depth; in the query too): 4xx `{detail}` as on every route.
    errorHandler: (error: FastifyError, request, reply) => {
      const [status, detail] = describeProblem(error, (message) => {
        request.log.error(message);
      });
      void reply.status(status).headers(problemHeaders(detail)).send({ detail });
    },
  });
}
