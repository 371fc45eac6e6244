import {
  Agent,
  createServer,
  request,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { Socket } from 'node:net';

/** Headers about one hop's connection, never passed on (RFC 9110, 7.6.1). */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
]);

/** The headers a proxy passes on: all but the hop-by-hop ones and those `Connection` names. */
export function endToEnd(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const named = new Set(
    (headers.connection ?? '').split(',').map((name) => name.trim().toLowerCase()),
  );
  return Object.fromEntries(
    Object.entries(headers).filter(([name]) => !HOP_BY_HOP.has(name) && !named.has(name)),
  );
}

function answerJson(response: ServerResponse, status: number, detail: string): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  response.writeHead(status, { 'content-type': 'application/json', connection: 'close' });
  response.end(JSON.stringify({ detail }));
}

/**
 * A deployment's stable address: an HTTP proxy in front of whichever runtime process is active.
 * Each request goes to the process active when it arrives, on a kept-alive client connection
 * too, so a client never talks to a revision that was replaced; a request in flight (a stream)
 * finishes where it started.
 */
export class DeploymentProxy {
  private target: number | undefined;
  private readonly agents = new Map<number, Agent>();
  /** Agents of replaced processes, whose requests in flight may still be streaming. */
  private readonly retired = new Set<Agent>();
  private readonly sockets = new Set<Socket>();
  private readonly server: Server;

  constructor() {
    this.server = createServer((incoming, response) => {
      this.forward(incoming, response);
    });
    this.server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
  }

  listen(port: number, host: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
  }

  get listening(): boolean {
    return this.server.listening;
  }

  switchTo(port: number): void {
    const previous = this.target;
    this.target = port;
    if (previous === undefined || previous === port) return;
    const agent = this.agents.get(previous);
    if (!agent) return;
    this.agents.delete(previous);
    for (const done of this.retired) {
      if (Object.keys(done.sockets).length === 0) this.retired.delete(done);
    }
    this.retired.add(agent);
    // The old process's idle connections are of no more use; those in use finish first.
    for (const sockets of Object.values(agent.freeSockets)) {
      for (const socket of sockets ?? []) socket.destroy();
    }
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    for (const agent of [...this.agents.values(), ...this.retired]) agent.destroy();
    this.agents.clear();
    this.retired.clear();
    if (!this.server.listening) return;
    await new Promise<void>((resolve) =>
      this.server.close(() => {
        resolve();
      }),
    );
  }

  private agentFor(port: number): Agent {
    let agent = this.agents.get(port);
    if (!agent) {
      agent = new Agent({ keepAlive: true });
      this.agents.set(port, agent);
    }
    return agent;
  }

  private forward(incoming: IncomingMessage, response: ServerResponse): void {
    const port = this.target;
    if (port === undefined) {
      incoming.resume();
      answerJson(response, 503, 'This deployment has no running revision yet');
      return;
    }
    const upstream = request(
      {
        host: '127.0.0.1',
        port,
        method: incoming.method,
        path: incoming.url,
        headers: endToEnd(incoming.headers),
        agent: this.agentFor(port),
      },
      (answer) => {
        response.writeHead(
          answer.statusCode ?? 502,
          answer.statusMessage,
          endToEnd(answer.headers),
        );
        // Streams (SSE) go out as they come.
        response.flushHeaders();
        answer.pipe(response);
        answer.on('error', () => response.destroy());
      },
    );
    upstream.on('error', () => {
      answerJson(response, 502, "The deployment's runtime did not answer");
    });
    // A client that goes away takes its request with it, as it would without the proxy.
    response.on('close', () => {
      if (!response.writableFinished) upstream.destroy();
    });
    incoming.pipe(upstream);
  }
}
