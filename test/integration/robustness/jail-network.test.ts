import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import pg from 'pg';
import { Client } from '@langchain/langgraph-sdk';
import { packDirectory } from '#libs/source-archive';
import { addGraph, exampleAppWithEnvGraph, type AppFixture } from '../../support/app-fixture.js';
import {
  OTHER_TENANT_KEY,
  startControlPlane,
  TEST_API_KEY,
  type ControlPlaneProcess,
} from '../../support/control-plane-process.js';
import { packExample, revisionLogs } from '../../support/deployment-flow.js';
import { deployAs, sealableOrSkipped } from '../../support/tenant-deploy.js';

jest.setTimeout(300_000);
/** Its runtimes stop and its HTTP server drains: seconds, not the harness's minute of grace. */
const STOP_WITHIN_MS = 20_000;

/** Connects to each `host:port` and says how it went: `connected`, or the error's code. */
const TRY_CONNECT = `
const net = require('node:net');
const attempt = (target) => new Promise((resolve) => {
  const [host, port] = target.split(/:(?=\\d+$)/);
  const socket = net.connect(Number(port), host);
  socket.setTimeout(5000, () => { socket.destroy(); resolve('timed out'); });
  socket.on('connect', () => { socket.destroy(); resolve('connected'); });
  socket.on('error', (error) => resolve(error.code || error.message));
});
module.exports = async (targets) => {
  const found = {};
  for (const target of targets) found[target] = await attempt(target);
  return found;
};
`;

const CONNECT_GRAPH = `import { createRequire } from 'node:module';
import { Annotation, END, START, StateGraph } from '@langchain/langgraph';

const tryConnect = createRequire(import.meta.url)('../try-connect.cjs');
const State = Annotation.Root({
  targets: Annotation<string[]>,
  found: Annotation<Record<string, string>>,
});
export const graph = new StateGraph(State)
  .addNode('connect', async (state) => ({ found: await tryConnect(state.targets) }))
  .addEdge(START, 'connect')
  .addEdge('connect', END)
  .compile();
`;

/**
 * Opens `count` connections to the graph's own database, each sending a startup packet and never
 * answering the password challenge, holds them `holdMs`, and counts how each ended.
 */
const FLOOD = `
const net = require('node:net');
function startupPacket(user, database) {
  const body = Buffer.from('user\\0' + user + '\\0database\\0' + database + '\\0\\0');
  const packet = Buffer.alloc(8 + body.length);
  packet.writeInt32BE(packet.length, 0);
  packet.writeInt32BE(196608, 4);
  body.copy(packet, 8);
  return packet;
}
module.exports = async ({ count, holdMs }) => {
  const url = new URL(process.env.DATABASE_URL);
  const socketDir = url.searchParams.get('host');
  const packet = startupPacket(decodeURIComponent(url.username), url.pathname.slice(1));
  const outcome = { challenged: 0, refused: 0, closedByServer: 0, failed: 0 };
  const open = (index) => new Promise((resolve) => {
    const socket = socketDir
      ? net.connect(socketDir + '/.s.PGSQL.5432')
      : net.connect(Number(url.port || 5432), url.hostname);
    let answer = '';
    let ended = false;
    const end = (how) => { if (!ended) { ended = true; outcome[how] += 1; resolve(); } };
    socket.on('connect', () => socket.write(packet));
    socket.on('data', (chunk) => {
      answer += chunk.toString('latin1');
      if (answer[0] === 'R') outcome.challenged += 1;
      if (answer[0] === 'E') end('refused');
      answer = answer[0] === 'R' ? '' : answer;
    });
    socket.on('error', () => end('failed'));
    socket.on('close', () => end('closedByServer'));
    setTimeout(() => { socket.destroy(); end('failed'); }, holdMs);
  });
  const all = [];
  for (let index = 0; index < count; index += 1) all.push(open(index));
  await Promise.all(all);
  return outcome;
};
`;

const FLOOD_GRAPH = `import { createRequire } from 'node:module';
import { Annotation, END, START, StateGraph } from '@langchain/langgraph';

const flood = createRequire(import.meta.url)('../flood.cjs');
const State = Annotation.Root({
  count: Annotation<number>,
  holdMs: Annotation<number>,
  outcome: Annotation<Record<string, number>>,
});
export const graph = new StateGraph(State)
  .addNode('flood', async (state) => ({ outcome: await flood(state) }))
  .addEdge(START, 'flood')
  .addEdge('flood', END)
  .compile();
`;

type FloodOutcome = {
  readonly challenged: number;
  readonly refused: number;
  readonly closedByServer: number;
  readonly failed: number;
};

/** The host's own IPv4 addresses, reached from outside it. */
const hostAddresses = (): string[] =>
  Object.values(networkInterfaces())
    .flat()
    .flatMap((address) =>
      address && address.family === 'IPv4' && !address.internal ? [address.address] : [],
    );

const describeWhereSealable = await sealableOrSkipped(describe, 'Jail network tests');

describeWhereSealable("a jail's network of its own, Berth running as root", () => {
  let cp: ControlPlaneProcess;
  let app: AppFixture;
  let listener: Server;
  let listenerPort: number;
  let client: Client;
  let other: Client;

  beforeAll(async () => {
    // What a tenant's code must not reach: a port open on every address of the host.
    listener = createServer((socket) => socket.destroy());
    listener.listen(0, '0.0.0.0');
    await new Promise((resolve) => listener.once('listening', resolve));
    listenerPort = (listener.address() as AddressInfo).port;
    cp = await startControlPlane({
      env: { BERTH_ALLOW_UNSEALED_TENANTS: 'false', BERTH_DEPLOYMENT_DB_CONNECTIONS: '20' },
    });
    app = await exampleAppWithEnvGraph();
    await writeFile(join(app.dir, 'try-connect.cjs'), TRY_CONNECT);
    await writeFile(join(app.dir, 'flood.cjs'), FLOOD);
    await addGraph(app.dir, 'connect', CONNECT_GRAPH);
    await addGraph(app.dir, 'flood', FLOOD_GRAPH);
    const { archive } = await packDirectory(app.dir);
    // The two tenants deploy side by side. The build reaches the package registry (the
    // internet) from its jail: one package installed into a folder of its own, so that the
    // app's dependencies are not resolved again.
    const [mine, theirs] = await Promise.all([
      deployAs(cp, TEST_API_KEY, 'network-probe', archive, {
        build_command:
          'npm install --prefix registry-probe --no-save --no-audit --no-fund ' +
          '--no-package-lock is-number@7.0.0 && ' +
          `node -e "console.log('REGISTRY ' + require('./registry-probe/node_modules/is-number')(7))"`,
      }),
      deployAs(cp, OTHER_TENANT_KEY, 'network-neighbour', await packExample()),
    ]);
    expect(mine.revision.status).toBe('DEPLOYED');
    expect(await revisionLogs(cp, mine.deployment.id, mine.revision.id, 'build')).toContain(
      'REGISTRY true',
    );
    client = new Client({
      apiUrl: mine.deployment.source_config.custom_url ?? '',
      apiKey: TEST_API_KEY,
    });
    expect(theirs.revision.status).toBe('DEPLOYED');
    other = new Client({
      apiUrl: theirs.deployment.source_config.custom_url ?? '',
      apiKey: OTHER_TENANT_KEY,
    });
  });

  afterAll(async () => {
    await cp.dispose();
    await app.remove();
    listener.close();
  });

  it("refuses the host's loopback ports, its own addresses, private and link-local ranges", async () => {
    const databasePort = new URL(cp.databaseUrl).port || '5432';
    const targets = [
      `127.0.0.1:${listenerPort}`,
      `127.0.0.1:${cp.port}`,
      `127.0.0.1:${databasePort}`,
      // slirp4netns's gateway: the host's loopback, seen from the jail.
      `10.0.2.2:${listenerPort}`,
      `10.0.2.2:${cp.port}`,
      ...hostAddresses().map((address) => `${address}:${listenerPort}`),
      '10.255.255.53:53',
      '192.168.1.1:80',
      '172.17.0.1:80',
      '100.64.0.1:80',
      '169.254.169.254:80',
    ];
    const { found } = (await client.runs.wait(null, 'connect', { input: { targets } })) as {
      found: Record<string, string>;
    };
    expect(Object.keys(found)).toEqual(targets);
    for (const target of targets) {
      expect([target, found[target]]).toEqual([
        target,
        expect.stringMatching(/^(ECONNREFUSED|EACCES|EHOSTUNREACH|ENETUNREACH)$/),
      ]);
    }
  });

  it("holds a pre-authentication flood to its role's limit while the other tenant and the platform go on", async () => {
    const count = 495;
    const flooding = client.runs.wait(null, 'flood', {
      input: { count, holdMs: 15_000 },
    }) as Promise<{ outcome: FloodOutcome }>;
    let finished = false;
    void flooding.finally(() => {
      finished = true;
    });
    const flooded = (): boolean => finished;
    let checksDuringFlood = 0;
    while (!flooded()) {
      const answer = (await other.runs.wait(null, 'agent', {
        input: { messages: [{ role: 'user', content: 'still there?' }] },
      })) as Record<string, unknown>;
      expect(answer).toBeDefined();
      const platform = new pg.Client({ connectionString: cp.databaseUrl });
      await platform.connect();
      await platform.query('select 1');
      await platform.end();
      expect((await cp.api('GET', '/v2/deployments')).status).toBe(200);
      if (!flooded()) checksDuringFlood += 1;
    }
    const { outcome } = await flooding;
    expect(checksDuringFlood).toBeGreaterThan(0);
    // At most the role's limit got as far as the password challenge; the rest were refused at
    // once, and those challenged were closed by the gate long before the graph let go.
    expect(outcome.challenged).toBeLessThanOrEqual(20);
    expect(outcome.refused).toBeGreaterThanOrEqual(count - 20);
    expect(outcome.closedByServer + outcome.refused).toBe(count);
  });

  it('stops on SIGTERM after the flood, whatever the gates saw', async () => {
    const exited = once(cp.child, 'exit');
    cp.child.kill('SIGTERM');
    const [code] = await Promise.race([exited, delay(STOP_WITHIN_MS, ['still running'])]);
    expect(code).toBe(0);
  });
});
