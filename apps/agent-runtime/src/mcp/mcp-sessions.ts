import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Inject, Injectable, type BeforeApplicationShutdown } from '@nestjs/common';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { AssistantTools } from './assistant-tools.service.js';
import { createMcpServer } from './mcp-server.js';
import { ToolRuns } from './tool-runs.service.js';

/** A session that has had no request for this long, and has none open, is ended. */
export const MCP_SESSION_IDLE_MS = 30 * 60_000;
/** SSE comments this often keep idle timeouts on the way (30 s and more) from cutting a long call. */
const KEEP_ALIVE_MS = 10_000;

export interface McpSession {
  readonly transport: StreamableHTTPServerTransport;
  /** Who opened it (see `ownerOf`): nobody else is answered in it. */
  readonly owner: string;
  lastSeen: number;
  /** Requests of the session still being answered (an SSE stream stays open). */
  open: number;
}

const isIdle = (session: McpSession, now: number): boolean =>
  session.open === 0 && now - session.lastSeen > MCP_SESSION_IDLE_MS;

/** Ends the session's streams and its server; a transport that fails to close is gone anyway. */
const end = (session: McpSession): Promise<void> =>
  session.transport.close().catch(() => undefined);

/**
 * The MCP sessions of this process, each a Streamable HTTP transport with a server of its own,
 * known by its `Mcp-Session-Id` once initialized, ended by DELETE, idleness or shutdown.
 */
@Injectable()
export class McpSessions implements BeforeApplicationShutdown {
  private readonly sessions = new Map<string, McpSession>();

  constructor(
    @Inject(AssistantTools) private readonly tools: AssistantTools,
    @Inject(ToolRuns) private readonly runs: ToolRuns,
  ) {}

  /** A new session for `owner`, to be given an initialize request; kept once initialized. */
  async open(owner: string): Promise<McpSession> {
    await this.endIdle(Date.now());
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      keepAliveMs: KEEP_ALIVE_MS,
      onsessioninitialized: (id) => {
        this.sessions.set(id, session);
      },
    });
    const session: McpSession = { transport, owner, lastSeen: Date.now(), open: 0 };
    transport.onclose = () => {
      if (transport.sessionId) this.sessions.delete(transport.sessionId);
    };
    await createMcpServer({ tools: this.tools, runs: this.runs }).connect(transport);
    return session;
  }

  /** The session of that id, if `owner` opened it and it has not been idle too long. */
  find(id: string, owner: string): McpSession | undefined {
    const session = this.sessions.get(id);
    if (!session || session.owner !== owner) return undefined;
    if (!isIdle(session, Date.now())) return session;
    void end(session);
    return undefined;
  }

  /** Answers one HTTP request of the session on the raw Node response. */
  async handle(
    session: McpSession,
    request: IncomingMessage & { auth?: AuthInfo },
    response: ServerResponse,
    body: unknown,
  ): Promise<void> {
    session.lastSeen = Date.now();
    session.open += 1;
    response.once('close', () => {
      session.open -= 1;
      session.lastSeen = Date.now();
    });
    await session.transport.handleRequest(request, response, body);
  }

  async beforeApplicationShutdown(): Promise<void> {
    const all = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(all.map(end));
  }

  private async endIdle(now: number): Promise<void> {
    const idle = [...this.sessions.values()].filter((session) => isIdle(session, now));
    await Promise.all(idle.map(end));
  }
}
