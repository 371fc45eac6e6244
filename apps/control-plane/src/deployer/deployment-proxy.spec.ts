import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { once } from 'node:events';
import {
  Agent,
  createServer,
  request,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';
import { DeploymentProxy, tooManyWebSockets } from './deployment-proxy.js';
import { ephemeralPort } from './free-port.js';
import type { UpgradeCourier } from './websocket-courier.js';
import { WebSocketJoins, type UpgradeToJoin } from './websocket-joins.js';

const HOST = '127.0.0.1';
/** WebSockets at once through the proxy under test. */
const MAX_WEBSOCKETS = 2;

/** The courier's joining, in this process: what crosses the IPC channel in production is the socket. */
class InProcessCourier implements UpgradeCourier {
  private readonly joins = new WebSocketJoins(() => undefined);

  handOver(upgrade: UpgradeToJoin, client: Socket): void {
    this.joins.join(upgrade, client);
  }

  openCount(key: string): number {
    return this.joins.count(key);
  }

  closeAll(key: string): void {
    this.joins.closeAll(key);
  }
}

type Response = { status: number; body: string; retryAfter?: string };

function get(port: number, agent: Agent | false): Promise<Response> {
  return new Promise((resolve, reject) => {
    const req = request({ host: HOST, port, path: '/', agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => {
        const retryAfter = res.headers['retry-after'];
        resolve({ status: res.statusCode ?? 0, body, ...(retryAfter ? { retryAfter } : {}) });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

type Upstream = { server: Server; port: number; connections: () => number };

/** An upstream that answers every request with its name, counting the connections it accepts. */
async function upstream(name: string): Promise<Upstream> {
  let connections = 0;
  const server = createServer((_req, res) => {
    res.end(name);
  });
  server.on('connection', () => (connections += 1));
  server.listen(0, HOST);
  await once(server, 'listening');
  return { server, port: (server.address() as AddressInfo).port, connections: () => connections };
}

/** The status an upgrade was refused with, and the body of the refusal. */
function refusedUpgrade(url: string, headers: Record<string, string> = {}): Promise<Response> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers });
    socket.once('open', () => {
      socket.terminate();
      reject(new Error('the upgrade was accepted'));
    });
    socket.once('unexpected-response', (_request, response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => {
        resolve({ status: response.statusCode ?? 0, body });
      });
    });
    socket.once('error', () => undefined);
  });
}

describe('DeploymentProxy', () => {
  let proxy: DeploymentProxy;
  let port: number;
  const servers: Server[] = [];
  const agents: Agent[] = [];

  const keepAliveAgent = (): Agent => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    agents.push(agent);
    return agent;
  };

  const start = async (name: string): Promise<Upstream> => {
    const started = await upstream(name);
    servers.push(started.server);
    return started;
  };

  beforeEach(async () => {
    proxy = new DeploymentProxy(MAX_WEBSOCKETS, new InProcessCourier(), 'deployment');
    port = await ephemeralPort(HOST);
    await proxy.listen(port, HOST);
  });

  afterEach(async () => {
    for (const agent of agents.splice(0)) agent.destroy();
    await proxy.close();
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('answers 503 with a JSON detail before it has a target', async () => {
    const response = await get(port, false);

    expect(response.status).toBe(503);
    expect(JSON.parse(response.body)).toEqual({
      detail: 'This deployment has no running revision yet',
    });
  });

  it('answers 503 with Retry-After while the live revision starts again, until switched', async () => {
    const a = await start('A');
    proxy.switchTo(a.port);
    await expect(get(port, false)).resolves.toEqual({ status: 200, body: 'A' });

    proxy.awaitRestart();
    const waiting = await get(port, false);
    expect(waiting).toMatchObject({ status: 503, retryAfter: '5' });
    expect(JSON.parse(waiting.body)).toEqual({
      detail:
        "This deployment's live revision is starting again (after a restart of the platform or " +
        'of its runtime): retry in a few seconds',
    });

    const b = await start('B');
    proxy.switchTo(b.port);
    await expect(get(port, false)).resolves.toEqual({ status: 200, body: 'B' });
  });

  it('sends requests to the target it was switched to', async () => {
    const a = await start('A');
    proxy.switchTo(a.port);

    await expect(get(port, false)).resolves.toEqual({ status: 200, body: 'A' });
    await expect(get(port, false)).resolves.toEqual({ status: 200, body: 'A' });
  });

  it('sends every request after a switch to the new target, on a kept-alive connection too', async () => {
    const a = await start('A');
    const b = await start('B');
    proxy.switchTo(a.port);
    const kept = keepAliveAgent();
    await expect(get(port, kept)).resolves.toEqual({ status: 200, body: 'A' });

    proxy.switchTo(b.port);

    await expect(get(port, false)).resolves.toEqual({ status: 200, body: 'B' });
    await expect(get(port, kept)).resolves.toEqual({ status: 200, body: 'B' });
    await expect(get(port, kept)).resolves.toEqual({ status: 200, body: 'B' });
    expect(a.connections()).toBe(1);
  });

  it('answers 502 with a JSON detail when the target does not answer', async () => {
    const gone = await ephemeralPort(HOST);
    proxy.switchTo(gone);

    const response = await get(port, false);

    expect(response.status).toBe(502);
    expect(JSON.parse(response.body)).toEqual({
      detail: "The deployment's runtime did not answer",
    });
  });

  it('keeps an open stream to the old target flowing after a switch', async () => {
    let streaming: ServerResponse | undefined;
    const streamed = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('first\n');
      streaming = res;
    });
    streamed.listen(0, HOST);
    await once(streamed, 'listening');
    servers.push(streamed);
    const b = await start('B');
    proxy.switchTo((streamed.address() as AddressInfo).port);

    const req = request({ host: HOST, port, path: '/', agent: false });
    req.end();
    const [res] = (await once(req, 'response')) as [IncomingMessage];
    res.setEncoding('utf8');
    const [first] = (await once(res, 'data')) as [string];
    expect(first).toBe('first\n');

    proxy.switchTo(b.port);
    await expect(get(port, false)).resolves.toEqual({ status: 200, body: 'B' });

    let rest = '';
    res.on('data', (chunk: string) => (rest += chunk));
    const ended = once(res, 'end');
    streaming?.end('second\n');
    await ended;
    expect(rest).toBe('second\n');
  });

  describe('WebSockets', () => {
    /** An upstream WebSocket server that echoes, refusing upgrades without `x-api-key: k`. */
    async function echoServer(): Promise<{ port: number; sockets: Set<WebSocket> }> {
      const sockets = new Set<WebSocket>();
      const server = createServer((_req, res) => {
        res.writeHead(426).end();
      });
      const wss = new WebSocketServer({ noServer: true });
      server.on('upgrade', (req, socket, head) => {
        if (req.headers['x-api-key'] !== 'k') {
          socket.end(
            'HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\n\r\n{"detail":"no key"}',
          );
          return;
        }
        wss.handleUpgrade(req, socket, head, (ws) => {
          sockets.add(ws);
          ws.on('message', (data: Buffer) => {
            ws.send(`echo ${data.toString()}`);
          });
        });
      });
      server.listen(0, HOST);
      await once(server, 'listening');
      servers.push(server);
      return { port: (server.address() as AddressInfo).port, sockets };
    }

    it('joins an accepted upgrade to the target, and closes each side when the other goes', async () => {
      const echo = await echoServer();
      proxy.switchTo(echo.port);

      const client = new WebSocket(`ws://${HOST}:${port}/socket`, {
        headers: { 'x-api-key': 'k' },
      });
      await once(client, 'open');
      client.send('hello');
      const [answer] = (await once(client, 'message')) as [Buffer];
      expect(answer.toString()).toBe('echo hello');

      const [upstream] = [...echo.sockets];
      const upstreamClosed = once(upstream as WebSocket, 'close');
      client.terminate();
      await upstreamClosed;

      const again = new WebSocket(`ws://${HOST}:${port}/socket`, { headers: { 'x-api-key': 'k' } });
      await once(again, 'open');
      const clientClosed = once(again, 'close');
      for (const socket of echo.sockets) socket.terminate();
      await clientClosed;
    });

    it("passes the target's refusal on, and answers 503 or 502 JSON when there is no target", async () => {
      const url = `ws://${HOST}:${port}/socket`;
      await expect(refusedUpgrade(url)).resolves.toEqual({
        status: 503,
        body: JSON.stringify({ detail: 'This deployment has no running revision yet' }),
      });
      proxy.switchTo(await ephemeralPort(HOST));
      await expect(refusedUpgrade(url)).resolves.toEqual({
        status: 502,
        body: JSON.stringify({ detail: "The deployment's runtime did not answer" }),
      });
      proxy.switchTo((await echoServer()).port);
      await expect(refusedUpgrade(url)).resolves.toEqual({
        status: 401,
        body: '{"detail":"no key"}',
      });
    });

    it('refuses an upgrade past its most WebSockets at once 429 JSON, and takes one again once one closes', async () => {
      const echo = await echoServer();
      proxy.switchTo(echo.port);
      const url = `ws://${HOST}:${port}/socket`;
      const open = async (): Promise<WebSocket> => {
        const socket = new WebSocket(url, { headers: { 'x-api-key': 'k' } });
        await once(socket, 'open');
        return socket;
      };
      const first = await open();
      const second = await open();

      await expect(refusedUpgrade(url, { 'x-api-key': 'k' })).resolves.toEqual({
        status: 429,
        body: JSON.stringify({ detail: tooManyWebSockets(MAX_WEBSOCKETS) }),
      });
      expect(echo.sockets.size).toBe(MAX_WEBSOCKETS);

      // The proxy forgets the client's socket before it closes the upstream one.
      const upstreamClosed = once([...echo.sockets][0] as WebSocket, 'close');
      first.terminate();
      await upstreamClosed;
      const third = await open();
      second.terminate();
      third.terminate();
    });

    it('ends upgraded sockets when closed', async () => {
      const echo = await echoServer();
      proxy.switchTo(echo.port);
      const client = new WebSocket(`ws://${HOST}:${port}/socket`, {
        headers: { 'x-api-key': 'k' },
      });
      await once(client, 'open');
      const closed = once(client, 'close');
      await proxy.close();
      await closed;
    });
  });

  it('ends open connections and stops listening when closed', async () => {
    const a = await start('A');
    proxy.switchTo(a.port);
    const client = connect({ host: HOST, port });
    const closed = once(client, 'close');
    await once(client, 'connect');

    await proxy.close();

    await closed;
    expect(proxy.listening).toBe(false);
    const refused = connect({ host: HOST, port });
    const [error] = (await once(refused, 'error')) as [NodeJS.ErrnoException];
    expect(error.code).toBe('ECONNREFUSED');
  });
});
