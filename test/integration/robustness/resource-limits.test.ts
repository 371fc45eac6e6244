import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@langchain/langgraph-sdk';
import { packDirectory } from '#libs/source-archive';
import { exampleAppWithEnvGraph, type AppFixture } from '../../support/app-fixture.js';
import {
  OTHER_TENANT_KEY,
  startControlPlane,
  type ControlPlaneProcess,
} from '../../support/control-plane-process.js';
import {
  packExample,
  revisionLogs,
  uploadSource,
  waitForRevision,
  type Deployment,
  type Revision,
} from '../../support/deployment-flow.js';
import { deployAs, sealableOrSkipped } from '../../support/tenant-deploy.js';
import { within } from '../../support/within.js';

jest.setTimeout(300_000);

/** A graph that takes far more memory than its runtime's limit. */
const HOG_GRAPH = `import { Annotation, END, START, StateGraph } from '@langchain/langgraph';

const State = Annotation.Root({ taken: Annotation<number> });
const held: Buffer[] = [];
export const graph = new StateGraph(State)
  .addNode('take', () => {
    for (let i = 0; i < 64; i++) held.push(Buffer.alloc(16 * 1024 * 1024, 1));
    return { taken: held.length };
  })
  .addEdge(START, 'take')
  .addEdge('take', END)
  .compile();
`;

/** A graph that tells the V8 heap limit its runtime was started with. */
const HEAP_LIMIT_GRAPH = `import { getHeapStatistics } from 'node:v8';
import { Annotation, END, START, StateGraph } from '@langchain/langgraph';

const State = Annotation.Root({ heapLimitMb: Annotation<number> });
export const graph = new StateGraph(State)
  .addNode('tell', () => ({ heapLimitMb: getHeapStatistics().heap_size_limit / 1024 / 1024 }))
  .addEdge(START, 'tell')
  .addEdge('tell', END)
  .compile();
`;

const describeWhereSealable = await sealableOrSkipped(describe, 'Resource limit tests');

describeWhereSealable('limits of one tenant, which the other never notices', () => {
  let cp: ControlPlaneProcess;
  let app: AppFixture;
  let victim: Client;
  let hog: Deployment;

  /** A new revision of the hog deployment with this build command; resolves with its end. */
  async function buildWith(buildCommand: string, archive?: Buffer): Promise<Revision> {
    const objectPath = await uploadSource(cp, hog.id, archive ?? (await packExample()));
    const patched = await cp.api<Deployment>('PATCH', `/v2/deployments/${hog.id}`, {
      source_config: { build_command: buildCommand },
      source_revision_config: { source_tarball_path: objectPath },
    });
    expect(patched.status).toBe(200);
    return waitForRevision(cp, hog.id, patched.body.latest_revision_id ?? '');
  }

  async function victimAnswers(): Promise<void> {
    const run = (await victim.runs.wait(null, 'agent', {
      input: { messages: [{ role: 'user', content: 'Weather in Oslo?' }] },
    })) as { messages: unknown[] };
    expect(run.messages.length).toBeGreaterThan(1);
  }

  beforeAll(async () => {
    cp = await startControlPlane({
      env: {
        BERTH_BUILD_MEMORY_MB: '512',
        BERTH_BUILD_PROCESSES: '128',
        BERTH_RUNTIME_MEMORY_MB: '512',
        // The example's npm install takes some 110 MiB (its dependencies' latest versions).
        BERTH_DEPLOYMENT_DISK_MB: '192',
      },
    });
    app = await exampleAppWithEnvGraph();
    const other = await deployAs(cp, OTHER_TENANT_KEY, 'the-neighbour', await packExample());
    if (other.revision.status !== 'DEPLOYED') {
      const { body } = await cp.api<{ resources: { message: string }[] }>(
        'GET',
        `/v2/deployments/${other.deployment.id}/revisions/${other.revision.id}/logs`,
        undefined,
        OTHER_TENANT_KEY,
      );
      const lines = body.resources.map((line) => line.message);
      throw new Error(
        `The neighbour is ${other.revision.status} (${other.revision.status_message ?? ''}):\n` +
          lines.join('\n'),
      );
    }
    victim = new Client({
      apiUrl: other.deployment.source_config.custom_url ?? '',
      apiKey: OTHER_TENANT_KEY,
    });
    hog = (await deployAs(cp, cp.apiKey, 'the-hog', await packExample())).deployment;
  });

  afterAll(async () => {
    await cp.dispose();
    await app.remove();
  });

  it('ends a build at its memory limit, in its own control group', async () => {
    const revision = await buildWith(
      'node -e "const held = []; for (;;) held.push(Buffer.alloc(32 * 1024 * 1024, 1))"',
    );
    expect(revision.status).toBe('BUILD_FAILED');
    expect(revision.status_message).toContain('reached its memory limit of 512 MiB');
    await victimAnswers();
  });

  it('stops a fork bomb at its process count', async () => {
    const revision = await buildWith(
      'i=0; while [ $i -lt 300 ]; do sleep 30 & i=$((i+1)); done; wait',
    );
    expect(revision.status).toBe('BUILD_FAILED');
    const lines = (await revisionLogs(cp, hog.id, revision.id, 'build')).join('\n');
    expect(lines).toMatch(/fork|Resource temporarily unavailable/i);
    await victimAnswers();
  });

  it("fails a build that fills the deployment's disk quota, and keeps nothing of it", async () => {
    const revision = await buildWith('dd if=/dev/zero of=filler bs=1M count=256 status=none');
    expect(revision.status).toBe('BUILD_FAILED');
    expect(revision.status_message).toContain('over its disk quota of 192 MiB');
    await victimAnswers();
  });

  it('sizes a runtime\'s V8 heap below its memory limit, ends it at that limit and starts it again', async () => {
    await writeFile(join(app.dir, 'src', 'hog.ts'), HOG_GRAPH);
    await writeFile(join(app.dir, 'src', 'heap-limit.ts'), HEAP_LIMIT_GRAPH);
    const config = JSON.parse(await readFile(join(app.dir, 'langgraph.json'), 'utf8')) as {
      graphs: Record<string, string>;
    };
    config.graphs.hog = './src/hog.ts:graph';
    config.graphs.heap_limit = './src/heap-limit.ts:graph';
    await writeFile(join(app.dir, 'langgraph.json'), JSON.stringify(config));
    const revision = await buildWith('true', (await packDirectory(app.dir)).archive);
    expect(revision.status).toBe('DEPLOYED');
    const hogClient = new Client({ apiUrl: hog.source_config.custom_url ?? '', apiKey: cp.apiKey });
    // The collector works within the jail: V8 would otherwise size its heap from the host's memory.
    const { heapLimitMb } = (await hogClient.runs.wait(null, 'heap_limit', { input: {} })) as {
      heapLimitMb: number;
    };
    expect(heapLimitMb).toBeGreaterThan(128);
    expect(heapLimitMb).toBeLessThan(512);
    // 1 GiB against 512 MiB: the kernel ends the runtime during the run.
    await hogClient.runs.wait(null, 'hog', { input: {} }).catch(() => undefined);
    const said = async (): Promise<string[]> => {
      for (;;) {
        const lines = await revisionLogs(cp, hog.id, revision.id, 'deploy');
        if (lines.some((line) => line.includes('Starting the active revision again'))) return lines;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    };
    const lines = await within(said(), 120_000, 'the runtime was started again');
    expect(lines).toContainEqual(
      expect.stringContaining('The runtime reached its memory limit of 512 MiB'),
    );
    await victimAnswers();
  });
});
