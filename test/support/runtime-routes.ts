import { RuntimeModule, type RuntimeParts } from '../../apps/agent-runtime/src/runtime.module.js';
import { MCP_PATH } from '../../apps/agent-runtime/src/mcp/mcp.route.js';
import { routesOf, type Route } from './nest-routes.js';

/** What an MCP client accepts: the transport refuses a POST that does not take both (406). */
const MCP_HEADERS = {
  accept: 'application/json, text/event-stream',
  'mcp-session-id': ':mcpSessionId',
};

/**
 * The routes the runtime registers on Fastify itself, outside Nest's router, which `routesOf`
 * cannot see: a route added beside these (`runtime-http.ts`) is to be added here.
 */
export const FASTIFY_ROUTES: readonly Route[] = [
  // The WebSocket of thread streaming v2 (`protocol-socket.route.ts`): a plain GET is a 426.
  { method: 'GET', path: '/threads/:threadId/stream/events' },
  // MCP (`mcp.route.ts`), in the client's session (`:mcpSessionId`, opened by the test).
  { method: 'POST', path: MCP_PATH, speaks: 'json-rpc', headers: MCP_HEADERS },
  { method: 'GET', path: MCP_PATH, speaks: 'json-rpc', headers: MCP_HEADERS },
  { method: 'DELETE', path: MCP_PATH, speaks: 'json-rpc', headers: MCP_HEADERS },
  // A2A (`a2a-routes.ts`): each assistant an agent, and its card.
  { method: 'POST', path: '/a2a/:assistantId', speaks: 'json-rpc' },
  { method: 'POST', path: '/a2a/:assistantId/', speaks: 'json-rpc' },
  { method: 'GET', path: '/a2a/:assistantId/.well-known/agent-card.json' },
  { method: 'GET', path: '/.well-known/agent-card.json' },
  { method: 'GET', path: '/.well-known/agent-card.json?assistant_id=:assistantId' },
  { method: 'GET', path: '/a2a/.well-known/agent-card.json' },
];

/** Nest's routes that speak thread streaming v2 rather than plain JSON. */
const SPEAKS: Readonly<Record<string, Route['speaks']>> = {
  'POST /threads/:threadId/commands': 'protocol-commands',
  'POST /threads/:threadId/stream/events': 'protocol-events',
};

/**
 * Every route of the agent runtime, in one list: Nest's (from its router's metadata) and those
 * registered on Fastify directly, each with the language it speaks.
 */
export function runtimeRoutes(): Route[] {
  const nest = routesOf(RuntimeModule.forRoot({} as RuntimeParts)).map((route) => {
    const speaks = SPEAKS[`${route.method} ${route.path}`];
    return speaks ? { ...route, speaks } : route;
  });
  return [...nest, ...FASTIFY_ROUTES];
}
