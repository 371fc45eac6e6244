import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { Client } from '@langchain/langgraph-sdk';
import { WebSocket } from 'ws';
import { tooManyWebSockets } from '../../../apps/control-plane/src/deployer/deployment-proxy.js';
import {
  startControlPlane,
  TEST_API_KEY,
  type ControlPlaneProcess,
} from '../../support/control-plane-process.js';
import { packExample, type Deployment } from '../../support/deployment-flow.js';
import { deployAs } from '../../support/tenant-deploy.js';
import { within } from '../../support/within.js';

jest.setTimeout(600_000);

const MAX_WEBSOCKETS = 40;
/** The headers timeout is 15 s, checked every 5 s; Node's defaults (60 s, every 30 s) are the defect. */
const GENEROUS_BOUND_MS = 45_000;

/** Opens a connection, sends `text`, sends nothing more; resolves when the server closes it. */
function stall(port: number, text: string): Promise<{ closedAfterMs: number }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(port, '127.0.0.1', () => socket.write(text));
    socket.resume();
    socket.on('error', reject);
    socket.on('close', () => {
      resolve({ closedAfterMs: Date.now() - started });
    });
  });
}

/** A thread's event stream's WebSocket URL under `base` (a deployment's URL, or the gateway's). */
async function threadSocketUrl(base: string, apiUrl: string): Promise<string> {
  const thread = await new Client({ apiUrl, apiKey: TEST_API_KEY }).threads.create();
  return `${base.replace(/^http/, 'ws')}/threads/${thread.thread_id}/stream/events`;
}

/** A WebSocket opened with the test tenant's key. */
async function openSocket(url: string): Promise<WebSocket> {
  const socket = new WebSocket(url, { headers: { 'x-api-key': TEST_API_KEY } });
  await once(socket, 'open');
  return socket;
}

/** Descriptors the process holds open. */
const descriptors = (pid: number): number => readdirSync(`/proc/${pid}/fd`).length;

/** The WebSocket courier the control plane started (a child of it), if any. */
function courierOf(controlPlanePid: number): number | undefined {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const parent = Number(readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]?.split(' ')[1]);
      const command = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (parent === controlPlanePid && command.includes('websocket-courier-main')) {
        return Number(entry);
      }
    } catch {
      // Gone meanwhile.
    }
  }
  return undefined;
}

/** The status and body an upgrade was refused with. */
function refusedUpgrade(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers: { 'x-api-key': TEST_API_KEY } });
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

/**
 * A deployment's own port, which the control plane opens: it cuts off a client that trickles
 * its request as the control plane's port does, and lets through a bounded number of WebSockets.
 */
describe("a deployment's port", () => {
  let cp: ControlPlaneProcess;
  let deployment: Deployment;
  let port: number;

  beforeAll(async () => {
    cp = await startControlPlane({
      env: { BERTH_DEPLOYMENT_MAX_WEBSOCKETS: String(MAX_WEBSOCKETS) },
    });
    const deployed = await deployAs(cp, TEST_API_KEY, 'port-limits', await packExample());
    expect(deployed.revision.status).toBe('DEPLOYED');
    deployment = deployed.deployment;
    port = Number(new URL(deployment.source_config.custom_url ?? '').port);
  });

  afterAll(async () => {
    await cp.dispose();
  });

  it('closes a connection whose request line never ends, as the control plane’s port does', async () => {
    const cpPort = Number(new URL(cp.url).port);
    const [deploymentPort, own] = await Promise.all([
      stall(port, 'GET /o'),
      stall(cpPort, 'GET /o'),
    ]);
    expect(deploymentPort.closedAfterMs).toBeLessThan(GENEROUS_BOUND_MS);
    expect(own.closedAfterMs).toBeLessThan(GENEROUS_BOUND_MS);
    expect((await fetch(`${deployment.source_config.custom_url ?? ''}/ok`)).status).toBe(200);
  });

  it('holds no descriptor of the WebSockets it lets through: the courier holds them', async () => {
    const apiUrl = deployment.source_config.custom_url ?? '';
    const url = await threadSocketUrl(apiUrl, apiUrl);
    const open = (): Promise<WebSocket> => openSocket(url);
    const controlPlane = cp.child.pid ?? 0;
    // The first WebSocket starts the courier; the count is taken with it running.
    const first = await open();
    const courier = courierOf(controlPlane);
    expect(courier).toBeDefined();
    const before = { controlPlane: descriptors(controlPlane), courier: descriptors(courier ?? 0) };

    const sockets = [first];
    while (sockets.length < MAX_WEBSOCKETS) sockets.push(await open());
    const after = { controlPlane: descriptors(controlPlane), courier: descriptors(courier ?? 0) };

    const added = MAX_WEBSOCKETS - 1;
    // Two each (the client's and the runtime's), all in the courier; none left in the control
    // plane (a few of its own may come and go meanwhile: its pools, its log).
    expect(after.courier - before.courier).toBeGreaterThanOrEqual(2 * added);
    expect(after.controlPlane - before.controlPlane).toBeLessThan(added / 4);

    const closed = sockets.map((socket) => once(socket, 'close'));
    for (const socket of sockets) socket.close();
    await Promise.all(closed);
  });

  it('refuses a WebSocket past BERTH_DEPLOYMENT_MAX_WEBSOCKETS 429 JSON, and takes one again once one closes', async () => {
    const apiUrl = deployment.source_config.custom_url ?? '';
    const url = await threadSocketUrl(apiUrl, apiUrl);
    const open = (): Promise<WebSocket> => openSocket(url);
    const sockets: WebSocket[] = [];
    while (sockets.length < MAX_WEBSOCKETS) sockets.push(await open());

    await expect(refusedUpgrade(url)).resolves.toEqual({
      status: 429,
      body: JSON.stringify({ detail: tooManyWebSockets(MAX_WEBSOCKETS) }),
    });

    // Once the platform has seen one go (it hears of it a moment after this client), another is
    // let through.
    const [first, ...rest] = sockets;
    const closed = once(first as WebSocket, 'close');
    first?.close();
    await closed;
    const again = await within(
      (async () => {
        for (;;) {
          const socket = await open().catch(() => undefined);
          if (socket) return socket;
        }
      })(),
      30_000,
      'A WebSocket let through once one closed',
    );
    for (const socket of [...rest, again]) socket.terminate();
  });

  it('stops on SIGTERM with WebSockets open through its port and the gateway, the courier with it', async () => {
    const apiUrl = deployment.source_config.custom_url ?? '';
    const gateway = `${cp.url}/v2/deployments/${deployment.id}/runtime`;
    const sockets = [
      await openSocket(await threadSocketUrl(apiUrl, apiUrl)),
      await openSocket(await threadSocketUrl(apiUrl, apiUrl)),
      await openSocket(await threadSocketUrl(gateway, apiUrl)),
    ];
    const courier = courierOf(cp.child.pid ?? 0);
    expect(courier).toBeDefined();
    const closed = Promise.all(sockets.map((socket) => once(socket, 'close')));

    await within(cp.stop(), 30_000, 'the control plane stopped on SIGTERM');
    await within(closed, 5_000, 'every WebSocket closed');
    expect(cp.child.exitCode).toBe(0);
    expect(() => process.kill(courier ?? 0, 0)).toThrow();
  });
});
