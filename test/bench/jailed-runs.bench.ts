/**
 * Runs through a jailed deployment (its own network, its database reached through the gate):
 * sequential create+join latency, then `runs/wait` throughput with concurrent clients. Needs
 * root, bubblewrap and slirp4netns. `npm run bench:jailed`; BENCH_JAILED_SAMPLES,
 * BENCH_JAILED_CLIENTS, BENCH_JAILED_SECONDS size it.
 */
import { Client } from '@langchain/langgraph-sdk';
import { packDirectory } from '#libs/source-archive';
import { addGraph, exampleAppWithEnvGraph } from '../support/app-fixture.js';
import { startControlPlane } from '../support/control-plane-process.js';
import {
  createSourceDeployment,
  patchSource,
  waitForRevision,
  type Deployment,
} from '../support/deployment-flow.js';
import { millis, percentile } from './bench-support.js';

const SAMPLES = Number(process.env.BENCH_JAILED_SAMPLES ?? 200);
const CLIENTS = Number(process.env.BENCH_JAILED_CLIENTS ?? 10);
const SECONDS = Number(process.env.BENCH_JAILED_SECONDS ?? 30);

const ECHO_GRAPH = `import { Annotation, END, START, StateGraph } from '@langchain/langgraph';

const State = Annotation.Root({ text: Annotation<string> });
export const graph = new StateGraph(State)
  .addNode('echo', async (state) => ({ text: state.text + '!' }))
  .addEdge(START, 'echo')
  .addEdge('echo', END)
  .compile();
`;

async function main(): Promise<void> {
  if (process.getuid?.() !== 0) throw new Error('bench:jailed needs root (jails)');
  const cp = await startControlPlane({
    embeddedDatabase: true,
    env: { BERTH_ALLOW_UNSEALED_TENANTS: 'false' },
  });
  const app = await exampleAppWithEnvGraph();
  try {
    await addGraph(app.dir, 'echo', ECHO_GRAPH);
    const { archive } = await packDirectory(app.dir);
    const created: Deployment = await createSourceDeployment(cp, 'bench-jailed');
    const patched = await patchSource(cp, created.id, archive);
    const revision = await waitForRevision(cp, created.id, patched.latest_revision_id ?? '');
    if (revision.status !== 'DEPLOYED') throw new Error(`revision ${revision.status}`);
    const deployment = await cp.api<Deployment>('GET', `/v2/deployments/${created.id}`);
    const client = new Client({
      apiUrl: deployment.body.source_config.custom_url ?? '',
      apiKey: cp.apiKey,
    });
    const thread = await client.threads.create();
    for (let i = 0; i < 20; i++)
      await client.runs.wait(thread.thread_id, 'echo', { input: { text: 'w' } });

    const samples: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      const started = performance.now();
      const run = await client.runs.create(thread.thread_id, 'echo', { input: { text: 'x' } });
      await client.runs.join(thread.thread_id, run.run_id);
      samples.push(performance.now() - started);
    }
    console.log(
      `jailed create+join (${SAMPLES} sequential): p50 ${millis(percentile(samples, 50))}, ` +
        `p99 ${millis(percentile(samples, 99))}`,
    );

    const threads = await Promise.all(
      Array.from({ length: CLIENTS }, () => client.threads.create()),
    );
    const until = Date.now() + SECONDS * 1000;
    const started = performance.now();
    const done = await Promise.all(
      threads.map(async (t) => {
        let runs = 0;
        while (Date.now() < until) {
          await client.runs.wait(t.thread_id, 'echo', { input: { text: 'y' } });
          runs += 1;
        }
        return runs;
      }),
    );
    const total = done.reduce((sum, n) => sum + n, 0);
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `jailed runs/wait (${CLIENTS} clients, ${seconds.toFixed(1)} s): ${total} runs, ` +
        `${(total / seconds).toFixed(1)} runs/s`,
    );
  } finally {
    await cp.dispose();
    await app.remove();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
