import {
  Agent,
  createServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { Socket } from 'node:net';
import { applyServerTimeouts, nodeServerOptions } from '#libs/http';
import { CONTROL_PLANE_REQUEST_TIMEOUT_MS } from '../request-timeout.js';
import {
  answerJson,
  endToEnd,
  forwardToRuntime,
  type RuntimeEndpoint,
} from './runtime-forwarding.js';
import { handOverUpgrade, onHandedOver, serveUpgrades, upgradeOf } from './upgrade-requests.js';
import type { UpgradeCourier } from './websocket-courier.js';

/** Before any revision of the deployment has been deployed. */
export const NOT_DEPLOYED_YET = 'This deployment has no running revision yet';
/** How long a client is asked to wait while the live revision's runtime starts again. */
export const STARTING_AGAIN_RETRY_AFTER_SECONDS = 5;
export const STARTING_AGAIN =
  "This deployment's live revision is starting again (after a restart of the platform or of " +
  'its runtime): retry in a few seconds';

/** An upgrade past the deployment's WebSockets at once. */
export const tooManyWebSockets = (max: number): string =>
  `This deployment has ${max} WebSockets open, the most it may (BERTH_DEPLOYMENT_MAX_WEBSOCKETS): ` +
  'close one, or retry later';

/**
 * A deployment's stable address: an HTTP proxy in front of whichever runtime process is active.
 * Each request goes to the process active when it arrives, on a kept-alive client connection
 * too, so a client never talks to a revision that was replaced; a request in flight (a stream)
 * finishes where it started. An upgrade (a WebSocket) is handed over to the courier, which
 * joins it to the same runtime and holds its descriptors, under the deployment's `key`. The
 * proxy checks no key: the runtime does, a WebSocket ticket included. At most `maxWebSockets`
 * are open at once (upgrades still being answered included); one more is refused 429.
 */
export class DeploymentProxy {
  private target: RuntimeEndpoint | undefined;
  /** No target, but a live revision whose runtime is being started again. */
  private startingAgain = false;
  private readonly agents = new Map<RuntimeEndpoint, Agent>();
  /** Agents of replaced processes, whose requests in flight may still be streaming. */
  private readonly retired = new Set<Agent>();
  private readonly sockets = new Set<Socket>();
  private readonly server: Server;

  constructor(
    private readonly maxWebSockets: number,
    private readonly courier: UpgradeCourier,
    private readonly key: string,
  ) {
    this.server = createServer(nodeServerOptions(), (incoming, response) => {
      this.forward(incoming, response);
    });
    applyServerTimeouts(this.server, CONTROL_PLANE_REQUEST_TIMEOUT_MS);
    this.server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
      onHandedOver(socket, () => this.sockets.delete(socket));
    });
    // An upgraded socket stays in `sockets` (it is the connection's) until it is handed over.
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

  switchTo(endpoint: RuntimeEndpoint): void {
    const previous = this.target;
    this.target = endpoint;
    this.startingAgain = false;
    if (previous !== endpoint) this.retire(previous);
  }

  /**
   * The live revision's runtime is gone (the platform restarted, or it died) and is being started
   * again: until switched to a target, answer 503 with Retry-After.
   */
  awaitRestart(): void {
    const previous = this.target;
    this.target = undefined;
    this.startingAgain = true;
    this.retire(previous);
  }

  private retire(previous: RuntimeEndpoint | undefined): void {
    if (previous === undefined) return;
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

  /** Ends every connection, WebSockets handed over included, and stops listening. */
  async close(): Promise<void> {
    this.courier.closeAll(this.key);
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

  private agentFor(endpoint: RuntimeEndpoint): Agent {
    let agent = this.agents.get(endpoint);
    if (!agent) {
      agent = new Agent({ keepAlive: true });
      this.agents.set(endpoint, agent);
    }
    return agent;
  }

  private forward(incoming: IncomingMessage, response: ServerResponse): void {
    const endpoint = this.target;
    if (endpoint === undefined) {
      incoming.resume();
      if (this.startingAgain) {
        answerJson(response, 503, STARTING_AGAIN, {
          'retry-after': String(STARTING_AGAIN_RETRY_AFTER_SECONDS),
        });
      } else answerJson(response, 503, NOT_DEPLOYED_YET);
      return;
    }
    const target = {
      endpoint,
      method: incoming.method ?? 'GET',
      path: incoming.url ?? '/',
      headers: endToEnd(incoming.headers),
    };
    if (!upgradeOf(incoming)) {
      forwardToRuntime({ ...target, body: incoming, agent: this.agentFor(endpoint) }, response);
    } else if (this.courier.openCount(this.key) >= this.maxWebSockets) {
      answerJson(response, 429, tooManyWebSockets(this.maxWebSockets));
    } else handOverUpgrade(this.courier, this.key, target, response);
  }
}
