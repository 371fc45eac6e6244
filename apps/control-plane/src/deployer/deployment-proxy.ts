import {
  Agent,
  createServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { Socket } from 'node:net';
import { answerJson, endToEnd, forwardToRuntime } from './runtime-forwarding.js';
import { serveUpgrades } from './upgrade-requests.js';

/**
 * A deployment's stable address: an HTTP proxy in front of whichever runtime process is active.
 * Each request goes to the process active when it arrives, on a kept-alive client connection
 * too, so a client never talks to a revision that was replaced; a request in flight (a stream)
 * finishes where it started. WebSockets pass through too (upgrade requests go the same way); the
 * proxy checks no key: the runtime does, a WebSocket ticket included.
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
    // Upgraded sockets stay in `sockets` (they are the connections'): `close` ends them too.
    serveUpgrades(this.server, (incoming, response) => {
      this.forward(incoming, response);
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
    forwardToRuntime(
      {
        port,
        method: incoming.method ?? 'GET',
        path: incoming.url ?? '/',
        headers: endToEnd(incoming.headers),
        body: incoming,
        agent: this.agentFor(port),
      },
      response,
    );
  }
}
