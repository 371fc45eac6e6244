import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { Client } from '@langchain/langgraph-sdk';
import {
  startControlPlane,
  type ControlPlaneProcess,
} from '../../support/control-plane-process.js';
import {
  createSourceDeployment,
  packExample,
  patchSource,
  waitForRevision,
  type Deployment,
} from '../../support/deployment-flow.js';

jest.setTimeout(240_000);

/**
 * A run of the example's custom graph that sleeps past every idle cut on the way (30 s on the
 * runtime and on the control plane): its steps and the sleep after each are its input.
 */
const LONG_RUN = { steps: 4, delay_ms: 9_000 };
const LONG_RUN_MS = LONG_RUN.steps * LONG_RUN.delay_ms;
const FINAL_VALUES = { ...LONG_RUN, total: 10, result: 'The sum of 1..4 is 10.' };

/** The official client, without retries: a cut wait must fail, not run again. */
const sdk = (apiUrl: string, apiKey: string): Client =>
  new Client({ apiUrl, apiKey, callerOptions: { maxRetries: 0 } });

describe('waiting for a run that takes longer than the idle timeouts', () => {
  let cp: ControlPlaneProcess;
  let deployment: Deployment;
  let runtimePort: number;

  beforeAll(async () => {
    // The runtime is asked directly on its loopback port too: jails share the host's network.
    cp = await startControlPlane({ env: { BERTH_JAIL_NETWORK: 'host' } });
    const created = await createSourceDeployment(cp, 'long-waits');
    const patched = await patchSource(cp, created.id, await packExample());
    const revisionId = patched.latest_revision_id ?? '';
    expect((await waitForRevision(cp, created.id, revisionId)).status).toBe('DEPLOYED');
    deployment = (await cp.api<Deployment>('GET', `/v2/deployments/${created.id}`)).body;
    const port = new RegExp(`revision ${revisionId}: runtime on 127\\.0\\.0\\.1:(\\d+)`).exec(
      cp.output(),
    )?.[1];
    if (!port) throw new Error(`No runtime port for ${revisionId} in:\n${cp.output()}`);
    runtimePort = Number(port);
  });

  afterAll(async () => {
    await cp.dispose();
  });

  it('runs/wait and join last as long as the run: on the runtime, the deployment port and the gateway', async () => {
    const direct = sdk(`http://127.0.0.1:${runtimePort}`, cp.apiKey);
    const viaPort = sdk(deployment.source_config.custom_url ?? '', cp.apiKey);
    const viaGateway = sdk(`${cp.url}/v2/deployments/${deployment.id}/runtime`, cp.apiKey);
    const [portThread, gatewayThread, joinedThread] = await Promise.all([
      viaPort.threads.create(),
      viaPort.threads.create(),
      viaPort.threads.create(),
    ]);
    const started = Date.now();
    const background = await viaPort.runs.create(joinedThread.thread_id, 'custom', {
      input: LONG_RUN,
    });
    // The paths side by side, so the test takes one long run's time.
    const waits = {
      'runs/wait on the runtime': direct.runs.wait(null, 'custom', { input: LONG_RUN }),
      'threads/{id}/runs/wait on the deployment port': viaPort.runs.wait(
        portThread.thread_id,
        'custom',
        { input: LONG_RUN },
      ),
      'threads/{id}/runs/wait through the gateway': viaGateway.runs.wait(
        gatewayThread.thread_id,
        'custom',
        { input: LONG_RUN },
      ),
      'join through the gateway': viaGateway.runs.join(joinedThread.thread_id, background.run_id),
    };
    const settled = await Promise.allSettled(Object.values(waits));
    const outcomes = Object.keys(waits).map((path, index) => {
      const outcome = settled[index];
      return [path, outcome?.status === 'fulfilled' ? outcome.value : String(outcome?.reason)];
    });
    expect(Object.fromEntries(outcomes)).toEqual(
      Object.fromEntries(Object.keys(waits).map((path) => [path, FINAL_VALUES])),
    );
    // Past the old cut (about 30 s) by construction: each run sleeps this long.
    expect(Date.now() - started).toBeGreaterThanOrEqual(LONG_RUN_MS);
    expect((await viaPort.runs.get(joinedThread.thread_id, background.run_id)).status).toBe(
      'success',
    );
  });
});
