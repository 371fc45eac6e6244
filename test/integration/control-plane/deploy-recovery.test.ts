import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import pg from 'pg';
import { packDirectory } from '#libs/source-archive';
import {
  exampleAppWithEnvGraph,
  readEnvThroughGraph,
  type AppFixture,
} from '../../support/app-fixture.js';
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
  waitForStatus,
  type Deployment,
} from '../../support/deployment-flow.js';
import { processesIn, untilNoneLeft } from '../../support/deployment-processes.js';
import { within } from '../../support/within.js';

jest.setTimeout(240_000);

/** The advisory lock the local listener's leader holds ('bert'). */
const LEADER_LOCK = 0x62657274;

describe('a control plane stopped in the middle of a build', () => {
  let cp: ControlPlaneProcess;
  let app: AppFixture;
  let deployment: Deployment;

  beforeAll(async () => {
    cp = await startControlPlane();
    app = await exampleAppWithEnvGraph();
  });

  afterAll(async () => {
    await cp.dispose();
    await app.remove();
  });

  it('builds the revision again after a SIGKILL and a restart, and serves the active one again', async () => {
    deployment = await createSourceDeployment(cp, 'recovery', [
      { name: 'GREETING', value: 'first' },
    ]);
    const archive = (await packDirectory(app.dir)).archive;
    const first = (await patchSource(cp, deployment.id, archive)).latest_revision_id ?? '';
    expect((await waitForRevision(cp, deployment.id, first)).status).toBe('DEPLOYED');
    const { body } = await cp.api<Deployment>('GET', `/v2/deployments/${deployment.id}`);
    const url = body.source_config.custom_url ?? '';

    // A build command that takes long enough to be caught in BUILDING.
    const slow = await patchSource(cp, deployment.id, archive, {
      source_config: { build_command: 'sleep 4' },
      secrets: [{ name: 'GREETING', value: 'second' }],
    });
    const second = slow.latest_revision_id ?? '';
    await waitForStatus(cp, deployment.id, second, 'BUILDING');
    expect(await processesIn(deployment.id)).not.toEqual([]);
    await cp.kill();

    // Its runtime processes stop with it: the deployment's URL goes quiet.
    const deadline = Date.now() + 20_000;
    let up = true;
    while (up && Date.now() < deadline) {
      up = await fetch(`${url}/ok`).then(
        () => true,
        () => false,
      );
      if (up) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(up).toBe(false);
    // Not only quiet: no process of the deployment is left (a jail ends with its parent).
    expect(await within(untilNoneLeft(deployment.id), 10_000, 'runtime processes ended')).toEqual(
      [],
    );

    cp = await restartControlPlane(cp);
    // The live revision serves again before the interrupted one is built again.
    const rebuilding = async (): Promise<void> => {
      for (;;) {
        const lines = await revisionLogs(cp, deployment.id, second, 'build');
        if (lines.some((line) => line.includes('building it again'))) return;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    await within(rebuilding(), 60_000, 'the interrupted revision is built again');
    expect(await readEnvThroughGraph(url, cp.apiKey, 'GREETING')).toBe('first');

    const revision = await waitForRevision(cp, deployment.id, second);
    const build = (await revisionLogs(cp, deployment.id, second, 'build')).join('\n');
    // On failure the message and the build's log say why.
    expect({ status: revision.status, message: revision.status_message, build }).toMatchObject({
      status: 'DEPLOYED',
    });
    expect(build).toMatch(
      /control plane stopped while this revision was BUILDING; building it again/,
    );
    expect(await readEnvThroughGraph(url, cp.apiKey, 'GREETING')).toBe('second');

    const history = await cp.api<{
      resources: { event: string; revision_id: string | null; changes: { status?: string } }[];
    }>('GET', `/v2/deployments/${deployment.id}/history`);
    const statuses = history.body.resources
      .filter((entry) => entry.event === 'RevisionStatusChanged' && entry.revision_id === second)
      .map((entry) => entry.changes.status);
    expect(statuses).toEqual([
      'AWAITING_BUILD',
      'BUILDING',
      'AWAITING_BUILD',
      'BUILDING',
      'AWAITING_DEPLOY',
      'DEPLOYING',
      'DEPLOYED',
    ]);
  });

  it('starts the active revision again when the control plane restarts with nothing in progress', async () => {
    const { body } = await cp.api<Deployment>('GET', `/v2/deployments/${deployment.id}`);
    const url = body.source_config.custom_url ?? '';
    await cp.stop();
    cp = await restartControlPlane(cp);
    const deadline = Date.now() + 60_000;
    let value: unknown;
    while (value === undefined && Date.now() < deadline) {
      value = await readEnvThroughGraph(url, cp.apiKey, 'GREETING').catch(() => undefined);
      if (value === undefined) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(value).toBe('second');
    const after = await cp.api<Deployment>('GET', `/v2/deployments/${deployment.id}`);
    expect(after.body.active_revision_id).toBe(body.active_revision_id);
    expect(after.body.latest_revision_id).toBe(body.latest_revision_id);
  });

  it('skips a revision still building when a newer one is requested, and deploys the newer one', async () => {
    const archive = (await packDirectory(app.dir)).archive;
    const slow = await patchSource(cp, deployment.id, archive, {
      source_config: { build_command: 'sleep 2' },
      secrets: [{ name: 'GREETING', value: 'superseded' }],
    });
    const older = slow.latest_revision_id ?? '';
    await waitForStatus(cp, deployment.id, older, 'BUILDING');
    const newer =
      (
        await cp.api<Deployment>('PATCH', `/v2/deployments/${deployment.id}`, {
          secrets: [{ name: 'GREETING', value: 'newest' }],
        })
      ).body.latest_revision_id ?? '';

    const skipped = await waitForRevision(cp, deployment.id, older);
    expect(skipped.status).toBe('SKIPPED');
    expect(skipped.status_message).toContain(newer);
    expect((await waitForRevision(cp, deployment.id, newer)).status).toBe('DEPLOYED');
    const { body } = await cp.api<Deployment>('GET', `/v2/deployments/${deployment.id}`);
    expect(body.active_revision_id).toBe(newer);
    expect(
      await readEnvThroughGraph(body.source_config.custom_url ?? '', cp.apiKey, 'GREETING'),
    ).toBe('newest');
  });

  it('keeps deploying after the listener loses its database connection and its leader lock', async () => {
    const client = new pg.Client({ connectionString: cp.databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ terminated: boolean }>(
        `select pg_terminate_backend(pid) as terminated from pg_locks
          where locktype = 'advisory' and objid = $1
            and database = (select oid from pg_database where datname = current_database())`,
        [LEADER_LOCK],
      );
      expect(rows).toEqual([{ terminated: true }]);
    } finally {
      await client.end();
    }
    const patched = await cp.api<Deployment>('PATCH', `/v2/deployments/${deployment.id}`, {
      secrets: [{ name: 'GREETING', value: 'after-reconnect' }],
    });
    const revision = await waitForRevision(
      cp,
      deployment.id,
      patched.body.latest_revision_id ?? '',
    );
    expect(revision.status).toBe('DEPLOYED');
    const url = patched.body.source_config.custom_url ?? '';
    expect(await readEnvThroughGraph(url, cp.apiKey, 'GREETING')).toBe('after-reconnect');
  });
});
