import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { A2A_VERSION_HEADER, HTTP_EXTENSION_HEADER } from '@a2a-js/sdk';
import { A2A_LEGACY_PROTOCOL_VERSION, LEGACY_HTTP_EXTENSION_HEADER } from '@a2a-js/sdk/compat/v0_3';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import {
  defaultServerCallContextBuilder,
  JsonRpcTransportHandler,
  validateVersion,
} from '@a2a-js/sdk/server';
import { Extensions } from '@a2a-js/sdk';
import { describeProblem, problemHeaders } from '#libs/http';
import { A2aCaller } from './a2a-caller.js';
import type { A2aAgents, EndpointOf } from './a2a-agents.js';
import { legacyAgentCardOf } from './agent-card.js';
import { writeSseAnswers } from './a2a-sse.js';

const CARD_PATH = '/.well-known/agent-card.json';

/** The absolute URL of an assistant's endpoint, as the request reached this server. */
function endpointsOf(request: FastifyRequest): EndpointOf {
  return (assistantId) => `${request.protocol}://${request.host}/a2a/${assistantId}`;
}

const header = (request: FastifyRequest, name: string): string | undefined => {
  const value = request.headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
};

/** A 0.3 request: it says so in `A2A-Version`, or says nothing (0.3 clients send no version). */
const isLegacy = (request: FastifyRequest): boolean =>
  (header(request, A2A_VERSION_HEADER) ?? A2A_LEGACY_PROTOCOL_VERSION) ===
  A2A_LEGACY_PROTOCOL_VERSION;

async function sendProblem(reply: FastifyReply, error: unknown): Promise<void> {
  const [status, detail] = describeProblem(error, (message) => {
    reply.log.error(message);
  });
  await reply.status(status).headers(problemHeaders(detail)).send({ detail });
}

/**
 * What a client is told at `/a2a/.well-known/agent-card.json` without `?assistant_id=`: the A2A
 * SDK resolves the card relative to the URL it is given, so `/a2a/{id}` (no trailing slash) lands
 * here, one level up from the assistant.
 */
export const UNNAMED_AGENT_DETAIL =
  'No assistant is named: give the A2A client /a2a/{assistant_id}/ (with the trailing slash), ' +
  'whose card is /a2a/{assistant_id}/.well-known/agent-card.json, or ask for ' +
  '/.well-known/agent-card.json?assistant_id={assistant_id}';

async function serveCard(
  agents: A2aAgents,
  request: FastifyRequest,
  reply: FastifyReply,
  assistantId: string | undefined,
): Promise<void> {
  if (!assistantId) {
    await reply.status(400).send({ detail: 'Name the assistant: ?assistant_id=<id or graph id>' });
    return;
  }
  try {
    const card = await agents.card(assistantId, endpointsOf(request), request.berthAuth);
    await reply
      .header('vary', A2A_VERSION_HEADER)
      .send(isLegacy(request) ? legacyAgentCardOf(card) : card);
  } catch (error) {
    await sendProblem(reply, error);
  }
}

function requestIdOf(body: unknown): string | number | null {
  const id = (body as { id?: unknown } | null)?.id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null;

/**
 * Whether the request names a task (or a push configuration) by something other than a string:
 * the SDK would call string methods on it and answer an internal error (-32603).
 */
function hasBadTaskId(body: unknown): boolean {
  const params = isRecord(body) ? body.params : undefined;
  if (!isRecord(params)) return false;
  const message = isRecord(params.message) ? params.message : {};
  return [params.id, params.taskId, message.taskId].some(
    (id) => id !== undefined && id !== null && typeof id !== 'string',
  );
}

/** JSON-RPC: the id of an answer to a request whose id could not be read is null. */
function withReadableId(answer: unknown): unknown {
  if (!isRecord(answer) || !('id' in answer)) return answer;
  const { id } = answer;
  return typeof id === 'string' || typeof id === 'number' || id === null
    ? answer
    : { ...answer, id: null };
}

async function answerJsonRpc(
  agents: A2aAgents,
  request: FastifyRequest<{ Params: { assistantId: string } }>,
  reply: FastifyReply,
): Promise<void> {
  let handler;
  try {
    handler = await agents.handler(
      request.params.assistantId,
      endpointsOf(request),
      request.berthAuth,
    );
  } catch (error) {
    await sendProblem(reply, error);
    return;
  }
  const legacy = isLegacy(request);
  const mapError = (error: unknown): unknown =>
    legacy
      ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError(error)
      : JsonRpcTransportHandler.mapToJSONRPCError(error);
  const id = requestIdOf(request.body);
  try {
    const context = defaultServerCallContextBuilder({
      extensions: Extensions.parseServiceParameter(
        legacy
          ? (header(request, LEGACY_HTTP_EXTENSION_HEADER) ??
              header(request, HTTP_EXTENSION_HEADER))
          : header(request, HTTP_EXTENSION_HEADER),
      ),
      user: new A2aCaller(request.berthAuth),
      headers: request.headers,
      requestedVersion: header(request, A2A_VERSION_HEADER),
    });
    validateVersion(context.requestedVersion, await handler.getAgentCard(), 'JSONRPC');
    if (hasBadTaskId(request.body)) {
      const error = { code: -32602, message: 'Invalid params: task ids are strings' };
      await reply.send({ jsonrpc: '2.0', id, error });
      return;
    }
    const transport = legacy
      ? new LegacyJsonRpcTransportHandler(handler)
      : new JsonRpcTransportHandler(handler);
    const answer = await transport.handle(request.body as Record<string, unknown>, context);
    if (Symbol.asyncIterator in answer) {
      reply.hijack();
      await writeSseAnswers(reply.raw, corsHeadersOf(reply), answer, mapError, id);
      return;
    }
    await reply.send(withReadableId(answer));
  } catch (error) {
    await reply.send({ jsonrpc: '2.0', id, error: mapError(error) });
  }
}

/** The headers hooks set on the reply (CORS), kept when the stream is written raw. */
function corsHeadersOf(reply: FastifyReply): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (typeof value === 'string') headers[name] = value;
  }
  return headers;
}

/**
 * A2A: each assistant an agent at `/a2a/{assistant_id}` (JSON-RPC, A2A 1.0 and 0.3), its card at
 * `/.well-known/agent-card.json?assistant_id=…` (also under `/a2a/`) and
 * `/a2a/{assistant_id}/.well-known/agent-card.json`.
 * Behind the API key and the application's auth as every route; not served with
 * `http.disable_a2a`.
 */
export function registerA2aRoutes(
  fastify: FastifyInstance,
  agents: A2aAgents,
  disabled: boolean,
): void {
  if (disabled) return;
  fastify.get<{ Querystring: { assistant_id?: string } }>(CARD_PATH, (request, reply) =>
    serveCard(agents, request, reply, request.query.assistant_id),
  );
  fastify.get<{ Querystring: { assistant_id?: string } }>(`/a2a${CARD_PATH}`, (request, reply) =>
    request.query.assistant_id
      ? serveCard(agents, request, reply, request.query.assistant_id)
      : reply.status(404).send({ detail: UNNAMED_AGENT_DETAIL }),
  );
  fastify.get<{ Params: { assistantId: string } }>(
    `/a2a/:assistantId${CARD_PATH}`,
    (request, reply) => serveCard(agents, request, reply, request.params.assistantId),
  );
  // With the trailing slash too: the URL to give the SDK, which some clients post to as it is.
  for (const path of ['/a2a/:assistantId', '/a2a/:assistantId/']) {
    fastify.post<{ Params: { assistantId: string } }>(path, (request, reply) =>
      answerJsonRpc(agents, request, reply),
    );
  }
}
