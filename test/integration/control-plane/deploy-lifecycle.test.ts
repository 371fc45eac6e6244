import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { gzipSync } from 'node:zlib';
import pg from 'pg';
import { Scrape } from '../../support/prometheus.js';
import { packDirectory } from '#libs/source-archive';
import {
  exampleAppWithEnvGraph,
  readEnvThroughGraph,
  type AppFixture,
} from '../../support/app-fixture.js';
import {
  OTHER_TENANT_KEY,
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
import {
  openSocket,
  refusedUpgrade,
  runOverSocket,
  threadSocketUrl,
  type SocketMessage,
} from '../../support/protocol-socket.js';
import { within } from '../../support/within.js';

jest.setTimeout(240_000);

/** The port the runtime of a revision listened on, as the control plane's own log says. */
function runtimePortOf(cp: ControlPlaneProcess, revisionId: string): number {
  const port = new RegExp(`revision ${revisionId}: runtime on 127\\.0\\.0\\.1:(\\d+)`).exec(
    cp.output(),
  )?.[1];
  if (!port) throw new Error(`No runtime port for ${revisionId} in:\n${cp.output()}`);
  return Number(port);
}

const answers = (port: number): Promise<boolean> =>
  fetch(`http://127.0.0.1:${port}/ok`).then(
    () => true,
    () => false,
  );

async function quietOn(port: number): Promise<void> {
  while (await answers(port)) await new Promise((resolve) => setTimeout(resolve, 100));
}

/** What a run started over a v2 WebSocket answers: both commands, then the run's completion. */
function expectRunCompleted(messages: SocketMessage[]): void {
  expect(messages).toContainEqual(
    expect.objectContaining({
      type: 'success',
      id: 1,
      result: { subscription_id: expect.any(String), replayed_events: expect.any(Number) },
    }),
  );
  expect(messages).toContainEqual(
    expect.objectContaining({ type: 'success', id: 2, result: { run_id: expect.any(String) } }),
  );
  expect(messages.at(-1)).toMatchObject({
    method: 'lifecycle',
    params: { namespace: [], data: { event: 'completed' } },
  });
}

/** A card of the history's timeline, as a client reads it. */
type TimelineCard = {
  kind: 'change' | 'status_walk' | 'failure';
  revision_id: string | null;
  events: number[];
  title?: string;
  actor?: { kind: string } | null;
  status?: string;
  activated?: boolean;
  summary?: string;
};

describe('deploying an uploaded source with the local listener', () => {
  let cp: ControlPlaneProcess;
  let app: AppFixture;
  let archive: Buffer;
  let deployment: Deployment;
  let url: string;
  const revisions: string[] = [];

  beforeAll(async () => {
    // Runtimes are watched on their loopback ports: jails share the host's network.
    cp = await startControlPlane({ env: { BERTH_JAIL_NETWORK: 'host' } });
    app = await exampleAppWithEnvGraph();
    archive = (await packDirectory(app.dir)).archive;
  });

  afterAll(async () => {
    await cp.dispose();
    await app.remove();
  });

  it('creates the deployment, builds the upload and serves it at its own URL', async () => {
    deployment = await createSourceDeployment(cp, 'lifecycle', [
      { name: 'GREETING', value: 'hello-v1' },
    ]);
    expect(deployment.latest_revision_id).toBeNull();
    const patched = await patchSource(cp, deployment.id, archive);
    const revisionId = patched.latest_revision_id ?? '';
    revisions.push(revisionId);
    const revision = await waitForRevision(cp, deployment.id, revisionId);
    expect(revision.status).toBe('DEPLOYED');

    const { body } = await cp.api<Deployment>('GET', `/v2/deployments/${deployment.id}`);
    expect(body.status).toBe('READY');
    expect(body.active_revision_id).toBe(revisionId);
    url = body.source_config.custom_url ?? '';
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await readEnvThroughGraph(url, cp.apiKey, 'GREETING')).toBe('hello-v1');

    const build = await revisionLogs(cp, deployment.id, revisionId, 'build');
    expect(build.join('\n')).toMatch(/Installing dependencies: npm install/);
    expect(build.join('\n')).not.toContain('hello-v1');
  });

  it("passes WebSockets through its URL and the console's gateway, with the keys HTTP takes", async () => {
    const key = { headers: { 'x-api-key': cp.apiKey } };
    const direct = await openSocket(threadSocketUrl(url, randomUUID()), [], key);
    expectRunCompleted(await runOverSocket(direct, 'custom', { steps: 1 }));
    direct.close();

    // A browser sends no key: its ticket, which the runtime checks, opens the socket.
    const threadId = randomUUID();
    const issued = await fetch(`${url}/threads/${threadId}/stream/tickets`, {
      method: 'POST',
      headers: { 'x-api-key': cp.apiKey },
    });
    const { ticket } = (await issued.json()) as { ticket: string };
    const ticketed = await openSocket(threadSocketUrl(url, threadId), [`berth.ticket.${ticket}`]);
    expect(ticketed.protocol).toBe(`berth.ticket.${ticket}`);
    expectRunCompleted(await runOverSocket(ticketed, 'custom', { steps: 1 }));
    ticketed.close();
    const noKey = await refusedUpgrade(threadSocketUrl(url, threadId));
    expect(noKey).toEqual({ status: 401, body: { detail: expect.any(String) } });
    const otherTenant = { headers: { 'x-api-key': OTHER_TENANT_KEY } };
    expect((await refusedUpgrade(threadSocketUrl(url, threadId), [], otherTenant)).status).toBe(
      401,
    );

    const gateway = `${cp.url}/v2/deployments/${deployment.id}/runtime`;
    const viaGateway = await openSocket(threadSocketUrl(gateway, randomUUID()), [], key);
    expectRunCompleted(await runOverSocket(viaGateway, 'custom', { steps: 1 }));
    viaGateway.close();
    expect(await refusedUpgrade(threadSocketUrl(gateway, randomUUID()))).toEqual({
      status: 401,
      body: { detail: 'Missing API key: send it in the X-Api-Key header' },
    });
    expect(await refusedUpgrade(threadSocketUrl(gateway, randomUUID()), [], otherTenant)).toEqual({
      status: 404,
      body: { detail: `Deployment ${deployment.id} not found` },
    });
  });

  it('records the runs of the deployment in its tracing project', async () => {
    const projects = await cp.api<{
      resources: { id: string; name: string; deployment_id: string }[];
    }>('GET', '/v1/tracing-projects');
    const project = projects.body.resources.find((p) => p.deployment_id === deployment.id);
    expect(project?.name).toBe('lifecycle');
    const deadline = Date.now() + 10_000;
    let runs: { status: string; finished_at: string | null }[] = [];
    while (runs.length === 0 && Date.now() < deadline) {
      runs = (
        await cp.api<{ resources: typeof runs }>(
          'GET',
          `/v1/tracing-projects/${project?.id ?? ''}/runs`,
        )
      ).body.resources;
      if (runs.length === 0) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(runs[0]).toMatchObject({ status: 'success' });
    expect(runs[0]?.finished_at).toEqual(expect.any(String));
  });

  it('deploys new secrets as a new revision, switches the URL to it, and stops the old process', async () => {
    const oldPort = runtimePortOf(cp, revisions[0] ?? '');
    expect(await answers(oldPort)).toBe(true);
    const patched = await cp.api<Deployment>('PATCH', `/v2/deployments/${deployment.id}`, {
      secrets: [{ name: 'GREETING', value: 'hello-v2' }],
    });
    expect(patched.status).toBe(200);
    const revisionId = patched.body.latest_revision_id ?? '';
    expect(revisionId).not.toBe(revisions[0]);
    revisions.push(revisionId);
    expect((await waitForRevision(cp, deployment.id, revisionId)).status).toBe('DEPLOYED');

    expect(patched.body.source_config.custom_url).toBe(url);
    expect(await readEnvThroughGraph(url, cp.apiKey, 'GREETING')).toBe('hello-v2');
    // The old process drains (503 to what still reaches it) for a moment, then is gone.
    await within(quietOn(oldPort), 30_000, `the old runtime on port ${oldPort} stopped`);
    const build = await revisionLogs(cp, deployment.id, revisionId, 'build');
    expect(build.join('\n')).toMatch(/reusing the installed node_modules/);
  });

  it('ends a broken tarball BUILD_FAILED with the reason in its logs, and the previous revision keeps serving', async () => {
    const broken = gzipSync(
      Buffer.from('this is not a tar archive, only gzip around text'.repeat(20)),
    );
    const patched = await patchSource(cp, deployment.id, broken);
    const revisionId = patched.latest_revision_id ?? '';
    const revision = await waitForRevision(cp, deployment.id, revisionId);
    expect(revision.status).toBe('BUILD_FAILED');
    expect(revision.status_message).toEqual(expect.any(String));
    expect((await revisionLogs(cp, deployment.id, revisionId, 'build')).join('\n')).toMatch(
      /Build failed/,
    );

    const { body } = await cp.api<Deployment>('GET', `/v2/deployments/${deployment.id}`);
    expect(body.active_revision_id).toBe(revisions[1]);
    expect(await readEnvThroughGraph(url, cp.apiKey, 'GREETING')).toBe('hello-v2');
  });

  it('ends a revision whose runtime cannot start DEPLOY_FAILED, and the previous revision keeps serving', async () => {
    const broken = await exampleAppWithEnvGraph();
    try {
      const { writeFile } = await import('node:fs/promises');
      // One graph of five that fails to load is enough: the revision is not deployed.
      await writeFile(`${broken.dir}/src/env.ts`, "throw new Error('this graph fails to load');\n");
      const patched = await patchSource(
        cp,
        deployment.id,
        (await packDirectory(broken.dir)).archive,
      );
      const revisionId = patched.latest_revision_id ?? '';
      const revision = await waitForRevision(cp, deployment.id, revisionId);
      expect(revision.status).toBe('DEPLOY_FAILED');
      // The message names the graph and why, on one line.
      expect(revision.status_message).toMatch(
        /^A graph failed to load: graph "env": [^\n]*this graph fails to load$/,
      );
      expect((await revisionLogs(cp, deployment.id, revisionId, 'deploy')).join('\n')).toMatch(
        /this graph fails to load/,
      );
    } finally {
      await broken.remove();
    }
    expect(await readEnvThroughGraph(url, cp.apiKey, 'GREETING')).toBe('hello-v2');
  });

  it('counts builds and deploys by outcome in its /metrics', async () => {
    const metrics = await Scrape.of(cp.url, cp.apiKey);
    for (const name of ['berth_build_duration_seconds', 'berth_deploy_duration_seconds']) {
      expect({ name, success: metrics.count(name, { outcome: 'success' }) >= 1 }).toEqual({
        name,
        success: true,
      });
      expect({ name, failure: metrics.count(name, { outcome: 'failure' }) >= 1 }).toEqual({
        name,
        failure: true,
      });
    }
    const deploymentsRoute = { method: 'POST', route: '/v2/deployments', status: '201' };
    expect(metrics.value('berth_http_requests_total', deploymentsRoute)).toBeGreaterThanOrEqual(1);
  });

  it('redeploys an earlier revision from its kept build, with its own secrets', async () => {
    const first = revisions[0] ?? '';
    const redeployed = await cp.api<{ id: string; status: string }>(
      'POST',
      `/v2/deployments/${deployment.id}/revisions/${first}/redeploy`,
    );
    expect(redeployed.status).toBe(200);
    expect(redeployed.body).toMatchObject({ id: first, status: 'QUEUED' });
    expect((await waitForRevision(cp, deployment.id, first)).status).toBe('DEPLOYED');
    const { body } = await cp.api<Deployment>('GET', `/v2/deployments/${deployment.id}`);
    expect(body.active_revision_id).toBe(first);
    expect(body.latest_revision_id).not.toBe(first);
    expect(await readEnvThroughGraph(url, cp.apiKey, 'GREETING')).toBe('hello-v1');
    expect((await revisionLogs(cp, deployment.id, first, 'build')).join('\n')).toMatch(
      /kept: deploying it without rebuilding/,
    );
  });

  it('keeps the whole story in the audit history', async () => {
    const { body } = await cp.api<{
      resources: {
        seq: number;
        event: string;
        revision_id: string | null;
        actor: { kind: string } | null;
        changes: Record<string, unknown>;
      }[];
      timeline: TimelineCard[];
    }>('GET', `/v2/deployments/${deployment.id}/history`);
    const entries = body.resources;
    expect(entries.map((entry) => entry.seq)).toEqual(entries.map((_, index) => index));
    expect(entries[0]?.event).toBe('DeploymentCreated');
    const statusesOf = (revisionId: string | undefined): unknown[] =>
      entries
        .filter(
          (entry) => entry.event === 'RevisionStatusChanged' && entry.revision_id === revisionId,
        )
        .map((entry) => entry.changes.status);
    expect(statusesOf(revisions[1])).toEqual([
      'AWAITING_BUILD',
      'BUILDING',
      'AWAITING_DEPLOY',
      'DEPLOYING',
      'DEPLOYED',
    ]);
    expect(statusesOf(revisions[0])).toEqual([
      'AWAITING_BUILD',
      'BUILDING',
      'AWAITING_DEPLOY',
      'DEPLOYING',
      'DEPLOYED',
      'AWAITING_DEPLOY',
      'DEPLOYING',
      'DEPLOYED',
    ]);
    const kinds = new Set(entries.map((entry) => entry.actor?.kind));
    expect(kinds).toEqual(new Set(['api_key', 'listener']));
    expect(entries.map((entry) => entry.event)).toEqual(
      expect.arrayContaining(['RevisionRedeployRequested', 'RevisionActivated', 'UploadUrlIssued']),
    );
    expect(JSON.stringify(body)).not.toMatch(/hello-v[12]/);

    // The same history as a person reads it: a line per walk of a revision, with its durations.
    const { timeline } = body;
    const walksOf = (revisionId: string | undefined): TimelineCard[] =>
      timeline.filter((card) => card.kind === 'status_walk' && card.revision_id === revisionId);
    expect(walksOf(revisions[1]).map((walk) => [walk.status, walk.activated])).toEqual([
      ['DEPLOYED', true],
    ]);
    const [built, redeployed] = walksOf(revisions[0]).map((walk) => walk.summary);
    expect(built).toMatch(/^queued [\d.]+ m?s, built in [\d.]+ (ms|s|min)\b.*, deployed in .+$/);
    // The redeploy walks again from its kept build, without building.
    expect(redeployed).toMatch(/^queued [\d.]+ m?s, deployed in .+$/);
    // A card of its own only for what a person did, each naming who.
    const changes = timeline.filter((card) => card.kind === 'change');
    expect(changes.map((card) => card.actor?.kind)).toEqual(changes.map(() => 'api_key'));
    expect(changes.map((card) => card.title)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^Deployment created/), 'Redeploy requested']),
    );
    const statusSeqs = entries
      .filter((entry) => entry.event === 'RevisionStatusChanged')
      .map((entry) => entry.seq);
    const walks = timeline.filter((card) => card.kind === 'status_walk');
    expect(walks.flatMap((walk) => walk.events)).toEqual(expect.arrayContaining(statusSeqs));
    // The broken tarball and the runtime that could not start: each failure a card, with why.
    const failures = timeline.filter((card) => card.kind === 'failure');
    expect(failures.map((card) => card.status)).toEqual(['BUILD_FAILED', 'DEPLOY_FAILED']);
    const failedWalks = walks.filter((walk) => walk.status?.endsWith('_FAILED'));
    expect(failedWalks.map((walk) => walk.summary)).toEqual([
      expect.stringMatching(/^queued .+failed after .+: .+/),
      expect.stringMatching(/^queued .+, built in .+, deploy failed after .+: .+/),
    ]);
    // Every event is on a card, which opens on it.
    const covered = new Set(timeline.flatMap((card) => card.events));
    expect(entries.filter((entry) => !covered.has(entry.seq))).toEqual([]);
  });

  it('tears the deployment down on DELETE: its URL, its database and its row go; its history stays', async () => {
    const port = Number(new URL(url).port);
    const gateway = `${cp.url}/v2/deployments/${deployment.id}/runtime`;
    const key = { headers: { 'x-api-key': cp.apiKey } };
    // WebSockets open through the URL and the gateway end with the runtime, neither left hanging.
    const sockets = await Promise.all(
      [url, gateway].map((base) => openSocket(threadSocketUrl(base, randomUUID()), [], key)),
    );
    const socketsClosed = Promise.all(sockets.map((socket) => once(socket, 'close')));
    expect((await cp.api('DELETE', `/v2/deployments/${deployment.id}`)).status).toBe(204);
    await within(socketsClosed, 30_000, 'the WebSockets to the deleted deployment closed');
    const deadline = Date.now() + 30_000;
    let status = 200;
    while (status !== 404 && Date.now() < deadline) {
      status = (await cp.api('GET', `/v2/deployments/${deployment.id}`)).status;
      if (status !== 404) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status).toBe(404);
    expect(await answers(port)).toBe(false);
    expect(await refusedUpgrade(threadSocketUrl(gateway, randomUUID()), [], key)).toEqual({
      status: 404,
      body: { detail: `Deployment ${deployment.id} not found` },
    });
    const history = await cp.api<{
      resources: { event: string; changes: { database?: string } }[];
    }>('GET', `/v2/deployments/${deployment.id}/history`);
    expect(history.body.resources.at(-1)?.event).toBe('DeploymentDeleted');
    const database = history.body.resources.find((e) => e.event === 'DeploymentUrlAssigned')
      ?.changes.database;
    expect(database).toMatch(/^berth_deployment_/);
    const client = new pg.Client({ connectionString: cp.databaseUrl });
    await client.connect();
    try {
      const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [
        database,
      ]);
      expect(rowCount).toBe(0);
    } finally {
      await client.end();
    }
  });

  it('leaves no database behind for deployments deleted right after their creation', async () => {
    const names = await Promise.all(
      Array.from({ length: 5 }, async (_, index) => {
        const created = await createSourceDeployment(cp, `short-lived-${index}`);
        expect((await cp.api('DELETE', `/v2/deployments/${created.id}`)).status).toBe(204);
        return { id: created.id, database: `berth_deployment_${created.id.replace(/-/g, '')}` };
      }),
    );
    const client = new pg.Client({ connectionString: cp.databaseUrl });
    await client.connect();
    try {
      for (const { id, database } of names) {
        const deadline = Date.now() + 30_000;
        let status = 200;
        while (status !== 404 && Date.now() < deadline) {
          status = (await cp.api('GET', `/v2/deployments/${id}`)).status;
          if (status !== 404) await new Promise((resolve) => setTimeout(resolve, 50));
        }
        expect(status).toBe(404);
        const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [
          database,
        ]);
        expect(rowCount).toBe(0);
      }
    } finally {
      await client.end();
    }
  });
});
