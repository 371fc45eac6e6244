import { mkdtemp } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startControlPlane, type ControlPlaneProcess } from '../support/control-plane-process.js';
import {
  createSourceDeployment,
  packExample,
  uploadSource,
  type Deployment,
} from '../support/deployment-flow.js';
import {
  measureThroughput,
  millis,
  openBenchDatabase,
  percentile,
  printTable,
  rate,
  type BenchDatabase,
  type Row,
} from './bench-support.js';

const REVISIONS = Number(process.env.BENCH_REVISIONS ?? 5);
const THROUGHPUT_MS = Number(process.env.BENCH_THROUGHPUT_MS ?? 5_000);
const CLIENTS = 8;
const LISTED_DEPLOYMENTS = 50;
const GOAL_MS = 5_000;
const NO_PEER = '-';

/** From the PATCH to the moment a poll of the revision first reads DEPLOYED. */
async function patchToDeployed(
  cp: ControlPlaneProcess,
  deploymentId: string,
  body: unknown,
): Promise<number> {
  const started = performance.now();
  const patched = await cp.api<Deployment>('PATCH', `/v2/deployments/${deploymentId}`, body);
  if (patched.status !== 200)
    throw new Error(`PATCH: ${patched.status} ${JSON.stringify(patched.body)}`);
  const revisionId = patched.body.latest_revision_id ?? '';
  for (;;) {
    const { body: revision } = await cp.api<{ status: string; status_message: string | null }>(
      'GET',
      `/v2/deployments/${deploymentId}/revisions/${revisionId}`,
    );
    if (revision.status === 'DEPLOYED') return performance.now() - started;
    if (revision.status.endsWith('FAILED')) {
      throw new Error(
        `Revision ${revisionId} ${revision.status}: ${revision.status_message ?? ''}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function requestsPerSecond(cp: ControlPlaneProcess, path: string): Promise<number> {
  const result = await measureThroughput(THROUGHPUT_MS, CLIENTS, async () => {
    const { status } = await cp.api('GET', path);
    if (status !== 200) throw new Error(`GET ${path}: ${status}`);
    return 1;
  });
  return result.operations / result.seconds;
}

function row(metric: string, berth: string): Row {
  return { metric, berth, peer: NO_PEER, ratio: NO_PEER };
}

async function main(): Promise<void> {
  let database: BenchDatabase | undefined;
  let cp: ControlPlaneProcess | undefined;
  try {
    database = await openBenchDatabase('control_plane');
    cp = await startControlPlane({
      databaseUrl: database.url,
      dataDir: await mkdtemp(join(tmpdir(), 'berth-bench-cp-')),
      // The list phase makes more deployments than a tenant may have by default.
      env: { BERTH_TENANT_MAX_DEPLOYMENTS: String(LISTED_DEPLOYMENTS) },
    });
    const archive = await packExample();
    const deployment = await createSourceDeployment(cp, 'bench-example', [
      { name: 'BENCH_SECRET', value: 'first' },
    ]);

    const uploadStarted = performance.now();
    const firstPath = await uploadSource(cp, deployment.id, archive);
    const uploadMs = performance.now() - uploadStarted;
    const firstMs = await patchToDeployed(cp, deployment.id, {
      source_revision_config: { source_tarball_path: firstPath },
    });

    const unchanged: number[] = [];
    for (let i = 0; i < REVISIONS; i += 1) {
      const path = await uploadSource(cp, deployment.id, archive);
      unchanged.push(
        await patchToDeployed(cp, deployment.id, {
          source_revision_config: { source_tarball_path: path },
        }),
      );
    }
    const secretsOnly: number[] = [];
    for (let i = 0; i < REVISIONS; i += 1) {
      secretsOnly.push(
        await patchToDeployed(cp, deployment.id, {
          secrets: [{ name: 'BENCH_SECRET', value: `v${i}` }],
        }),
      );
    }

    const listener = await cp.api<{ id: string }>('POST', '/v2/listeners', {
      name: 'bench-cluster',
      compute_type: 'cluster',
    });
    for (let i = 0; i < LISTED_DEPLOYMENTS - 1; i += 1) {
      const created = await cp.api('POST', '/v2/deployments', {
        name: `bench-listed-${i}`,
        source: 'external_container',
        source_config: { listener_id: listener.body.id },
        source_revision_config: { image_uri: 'registry.example.com/agent:1' },
      });
      if (created.status !== 201) throw new Error(`create: ${created.status}`);
    }
    const getRate = await requestsPerSecond(cp, `/v2/deployments/${deployment.id}`);
    const listRate = await requestsPerSecond(cp, '/v2/deployments?limit=20');

    const p50 = percentile(unchanged, 50);
    printTable(
      `Control plane (${database.where}, local listener; no peer runs here; load ${loadavg()[0]?.toFixed(2) ?? '?'})`,
      'peer',
      [
        row('upload of the example application (6 KB tarball)', millis(uploadMs)),
        row('PATCH to DEPLOYED, first revision (npm install)', millis(firstMs)),
        row(`PATCH to DEPLOYED, unchanged lockfile p50 (${REVISIONS} revisions)`, millis(p50)),
        row(`PATCH to DEPLOYED, unchanged lockfile max`, millis(Math.max(...unchanged))),
        row(
          `PATCH to DEPLOYED, secrets only p50 (${REVISIONS} revisions)`,
          millis(percentile(secretsOnly, 50)),
        ),
        row(`GET /v2/deployments/{id}, ${CLIENTS} clients`, rate(getRate)),
        row(
          `GET /v2/deployments (20 of ${LISTED_DEPLOYMENTS}), ${CLIENTS} clients`,
          rate(listRate),
        ),
      ],
    );
    console.log(
      `\nGoal: a revision with an unchanged lockfile DEPLOYED in under ${GOAL_MS / 1000} s: ` +
        `${p50 < GOAL_MS ? 'met' : 'MISSED'} (p50 ${millis(p50)}; each: ${unchanged.map((ms) => millis(ms)).join(', ')})`,
    );
  } finally {
    await cp?.dispose();
    await database?.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exit(1);
});
