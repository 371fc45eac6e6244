import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { once } from 'node:events';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { packDirectory } from '#libs/source-archive';
import { addGraph, exampleAppWithEnvGraph, type AppFixture } from '../../support/app-fixture.js';
import {
  restartControlPlane,
  startControlPlane,
  type ControlPlaneProcess,
} from '../../support/control-plane-process.js';
import {
  createSourceDeployment,
  patchSource,
  revisionLogs,
  waitForRevision,
  type Deployment,
} from '../../support/deployment-flow.js';
import { within } from '../../support/within.js';

jest.setTimeout(240_000);

/**
 * A graph module that loads only once the test's gate answers: it holds the runtime's start, or
 * ends the runtime when the gate says so.
 */
const GATED_GRAPH = `const said = await (await fetch(process.env.GATE_URL ?? '')).text();
if (said === 'exit') process.exit(1);
export { graph } from './agent.js';
`;

/** Its graphs reach a server of the test's on loopback: jails share the host's network. */
const HOST_NETWORK = { BERTH_JAIL_NETWORK: 'host' };

const STARTING_AGAIN =
  "This deployment's live revision is starting again (after a restart of the platform or of " +
  'its runtime): retry in a few seconds';

/** An HTTP server whose answers can be held: a runtime importing the gated graph waits on it. */
class Gate {
  private readonly server: Server;
  private open = true;
  private ending = false;
  private readonly held: ServerResponse[] = [];
  private heldOne: (() => void) | undefined;

  constructor() {
    this.server = createServer((_request, response) => {
      if (this.ending) response.end('exit');
      else if (this.open) response.end('open');
      else {
        this.held.push(response);
        this.heldOne?.();
      }
    });
  }

  async listen(): Promise<string> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/gate`;
  }

  close(): void {
    this.open = false;
  }

  /** Resolves once a request is held (a runtime is loading the application). */
  holding(): Promise<void> {
    if (this.held.length > 0) return Promise.resolve();
    return new Promise((resolve) => (this.heldOne = resolve));
  }

  /** Every runtime that loads the application from now on ends at once. */
  endRuntimes(): void {
    this.ending = true;
  }

  release(): void {
    this.ending = false;
    this.open = true;
    for (const response of this.held.splice(0)) response.end('open');
  }

  async stop(): Promise<void> {
    this.release();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

type Answer = { status: number; retryAfter: string | null; body: unknown };

async function answerOf(url: string, apiKey?: string): Promise<Answer> {
  const response = await fetch(url, { headers: apiKey ? { 'x-api-key': apiKey } : {} });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: kept as text.
  }
  return { status: response.status, retryAfter: response.headers.get('retry-after'), body };
}

/** Asks until the answer is no longer a 503 (or the port is closed); returns it. */
async function untilServing(url: string): Promise<Answer> {
  for (;;) {
    const answer = await answerOf(url).catch(() => undefined);
    if (answer && answer.status !== 503) return answer;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("a deployment's address while its live revision starts again after a restart", () => {
  let cp: ControlPlaneProcess;
  let app: AppFixture;
  const gate = new Gate();
  let gateUrl = '';

  beforeAll(async () => {
    gateUrl = await gate.listen();
    cp = await startControlPlane({ env: HOST_NETWORK });
    app = await exampleAppWithEnvGraph();
    await addGraph(app.dir, 'gated', GATED_GRAPH);
  });

  afterAll(async () => {
    await cp.dispose();
    await gate.stop();
    await app.remove();
  });

  type Gated = { deployment: Deployment; revisionId: string; url: string };
  let gated: Promise<Gated> | undefined;

  /**
   * The application with its gated graph, deployed once for the tests that restart it (each
   * leaves it serving): its revision and address.
   */
  function deployGated(): Promise<Gated> {
    gated ??= (async () => {
      const deployment = await createSourceDeployment(cp, 'gated', [
        { name: 'GATE_URL', value: gateUrl },
      ]);
      const archive = (await packDirectory(app.dir)).archive;
      const revisionId = (await patchSource(cp, deployment.id, archive)).latest_revision_id ?? '';
      expect((await waitForRevision(cp, deployment.id, revisionId)).status).toBe('DEPLOYED');
      const { body } = await cp.api<Deployment>('GET', `/v2/deployments/${deployment.id}`);
      return { deployment, revisionId, url: body.source_config.custom_url ?? '' };
    })();
    return gated;
  }

  it('says 503 with Retry-After that it is starting again, not that it has no revision yet', async () => {
    const { deployment, url } = await deployGated();
    expect((await answerOf(`${url}/ok`)).status).toBe(200);

    gate.close();
    await cp.stop();
    cp = await restartControlPlane(cp, HOST_NETWORK);
    // The runtime started again is held loading the application: the address answers for it.
    await within(gate.holding(), 60_000, 'the live revision starting again');
    const starting = { status: 503, retryAfter: '5', body: { detail: STARTING_AGAIN } };
    expect(await answerOf(`${url}/ok`)).toEqual(starting);
    expect(await answerOf(`${url}/assistants/search`, cp.apiKey)).toEqual(starting);
    // The control plane's gateway goes through the same address.
    expect(
      await answerOf(`${cp.url}/v2/deployments/${deployment.id}/runtime/ok`, cp.apiKey),
    ).toEqual(starting);

    gate.release();
    expect(await within(untilServing(`${url}/ok`), 60_000, 'the live revision serving')).toEqual({
      status: 200,
      retryAfter: null,
      body: expect.anything(),
    });
  });

  it('tries the live revision again, waiting longer each time, until it starts', async () => {
    const { deployment, revisionId, url } = await deployGated();

    gate.endRuntimes();
    await cp.stop();
    cp = await restartControlPlane(cp, HOST_NETWORK);
    const failedTwice = async (): Promise<string[]> => {
      for (;;) {
        const lines = await revisionLogs(cp, deployment.id, revisionId, 'deploy');
        if (lines.some((line) => line.includes('again failed (attempt 2)'))) return lines;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    };
    const lines = await within(failedTwice(), 90_000, 'two failed starts of the live revision');
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^Starting the live revision again failed \(attempt 1\): .+; trying again in 1 s$/,
      ),
    );
    expect(lines).toContainEqual(expect.stringMatching(/\(attempt 2\): .+; trying again in 2 s$/));
    expect(await answerOf(`${url}/ok`)).toEqual({
      status: 503,
      retryAfter: '5',
      body: { detail: STARTING_AGAIN },
    });

    gate.release();
    expect(await within(untilServing(`${url}/ok`), 120_000, 'the live revision serving')).toEqual({
      status: 200,
      retryAfter: null,
      body: expect.anything(),
    });
  });

  it('still says a deployment with no deployed revision has none yet', async () => {
    const deployment = await createSourceDeployment(cp, 'never-deployed');
    const opened = async (): Promise<string> => {
      for (;;) {
        const { body } = await cp.api<Deployment>('GET', `/v2/deployments/${deployment.id}`);
        const url = body.source_config.custom_url;
        if (url && (await answerOf(`${url}/ok`).catch(() => undefined))) return url;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    const url = await within(opened(), 60_000, "the deployment's address open");
    expect(await answerOf(`${url}/ok`)).toEqual({
      status: 503,
      retryAfter: null,
      body: { detail: 'This deployment has no running revision yet' },
    });
  });
});
