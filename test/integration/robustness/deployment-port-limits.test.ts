import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { once } from 'node:events';
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

const MAX_WEBSOCKETS = 3;
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

  it('refuses a WebSocket past BERTH_DEPLOYMENT_MAX_WEBSOCKETS 429 JSON, and takes one again once one closes', async () => {
    const apiUrl = deployment.source_config.custom_url ?? '';
    const thread = await new Client({ apiUrl, apiKey: TEST_API_KEY }).threads.create();
    const url = `${apiUrl.replace(/^http/, 'ws')}/threads/${thread.thread_id}/stream/events`;
    const open = async (): Promise<WebSocket> => {
      const socket = new WebSocket(url, { headers: { 'x-api-key': TEST_API_KEY } });
      await once(socket, 'open');
      return socket;
    };
    const sockets = [await open(), await open(), await open()];

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
});
