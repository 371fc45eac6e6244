import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  restartControlPlane,
  startControlPlane,
  type ControlPlaneProcess,
} from '../../support/control-plane-process.js';
import type { Deployment } from '../../support/deployment-flow.js';
import { withClient } from '#libs/database';
import { freePort } from '../../support/free-port.js';
import { testServerUrl } from '../../support/test-server.js';
import { startListenerProcess, type ListenerProcess } from '../../support/listener-process.js';
import {
  ApiAudit,
  eventually,
  postExternalDeployment,
  uniqueName,
  type Json,
  type Page,
} from '../control-plane/api-audit.js';

jest.setTimeout(120_000);

const SECRET_VALUE = 'sk-listener-process-5d1e77';
const LISTENER_NAME = 'it-cluster';

/**
 * `berth listener` as a user runs it, against a real control plane. No cluster runs here, and none
 * is faked: its kubeconfig names an address where nothing listens, so every call to the cluster
 * fails as it does when the API server is down. Its deployments' databases are made on the test
 * PostgreSQL (BERTH_LISTENER_DATABASE_URL). What the listener does before it reaches the cluster
 * (its registration, opening a revision's secrets, rendering and validating its objects, its
 * database, the namespaces it may use, the revision's failures, its retries) is what this checks;
 * test/integration/cluster-listener/kubernetes-e2e.test.ts applies revisions to a real cluster.
 */
describe('berth listener, a real process against a real control plane', () => {
  let cp: ControlPlaneProcess;
  let audit: ApiAudit;
  let work: string;
  let kubeconfig: string;
  let listener: ListenerProcess;
  /** What every listener process of the suite wrote. */
  let everything = '';

  const api = <T = Json>(method: string, path: string, body?: unknown) =>
    audit.api<T>(method, path, body);
  const identityFile = () => join(work, 'identity.json');

  const startListener = (): ListenerProcess =>
    startListenerProcess({
      hostUrl: cp.url,
      apiKey: cp.apiKey,
      args: [
        '--name',
        LISTENER_NAME,
        '--namespace',
        'agents',
        '--own-namespace',
        'berth-system',
        '--identity',
        identityFile(),
        '--kubeconfig',
        kubeconfig,
      ],
      env: { BERTH_LISTENER_DATABASE_URL: testServerUrl() },
      onOutput: (text) => {
        everything += text;
      },
    });

  const myListeners = async (): Promise<Json[]> =>
    (await api<Page>('GET', '/v2/listeners')).body.resources.filter(
      (resource) => resource.name === LISTENER_NAME,
    );

  const revisionOf = async (deployment: Deployment): Promise<Json> =>
    (
      await api(
        'GET',
        `/v2/deployments/${deployment.id}/revisions/${String(deployment.latest_revision_id)}`,
      )
    ).body;

  beforeAll(async () => {
    cp = await startControlPlane();
    audit = new ApiAudit(cp);
    work = await mkdtemp(join(tmpdir(), 'berth-listener-'));
    const unreachable = `https://127.0.0.1:${await freePort()}`;
    kubeconfig = join(work, 'kubeconfig');
    await writeFile(
      kubeconfig,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'down', cluster: { server: unreachable } }],
        users: [{ name: 'down', user: { token: 'unused' } }],
        contexts: [{ name: 'down', context: { cluster: 'down', user: 'down' } }],
        'current-context': 'down',
      }),
    );
    listener = startListener();
  });

  afterAll(async () => {
    try {
      await listener.stop();
      audit.expectNoServerErrors();
    } finally {
      await cp.dispose();
      await rm(work, { recursive: true, force: true });
    }
  });

  it('registers once with a key pair of its own, and shows connected', async () => {
    const [registered] = await eventually('the listener registered and polling', async () => {
      const found = await myListeners();
      return found.some((resource) => resource.connected === true) ? found : undefined;
    });
    expect(registered).toMatchObject({
      compute_type: 'cluster',
      compute_config: {
        namespaces: ['agents'],
        public_key: expect.stringContaining('-----BEGIN PUBLIC KEY-----'),
      },
      connected: true,
    });
    expect((await stat(identityFile())).mode & 0o777).toBe(0o600);
  });

  it('fails a revision for a namespace it does not manage, saying why, in its own name', async () => {
    const [mine] = await myListeners();
    const listenerId = String(mine?.id);
    const deployment = await postExternalDeployment(audit, listenerId, uniqueName('elsewhere'), {
      source_config: { listener_id: listenerId, listener_config: { cluster_namespace: 'billing' } },
      secrets: [{ name: 'OPENAI_API_KEY', value: SECRET_VALUE }],
    });
    const failed = await eventually('the revision failed', async () => {
      const revision = await revisionOf(deployment);
      return revision.status === 'DEPLOY_FAILED' ? revision : undefined;
    });
    expect(failed.status_message).toBe(
      'namespace "billing" is not one this listener manages (agents)',
    );
    const history = await api<{ resources: { event: string; actor: Json | null }[] }>(
      'GET',
      `/v2/deployments/${deployment.id}/history`,
    );
    expect(history.body.resources.at(-1)?.actor).toEqual({
      kind: 'listener',
      listener_id: listenerId,
    });
  });

  it('opens, renders and validates a revision, makes its database, reports DEPLOYING, and waits for the cluster', async () => {
    const [mine] = await myListeners();
    const listenerId = String(mine?.id);
    const deployment = await postExternalDeployment(audit, listenerId, uniqueName('waiting'), {
      source_config: {
        listener_id: listenerId,
        listener_config: { cluster_namespace: 'agents' },
        resource_spec: { max_scale: 3, db_max_connections: 60 },
      },
      secrets: [{ name: 'OPENAI_API_KEY', value: SECRET_VALUE }],
    });
    await eventually('the revision deploying', async () =>
      (await revisionOf(deployment)).status === 'DEPLOYING' ? true : undefined,
    );
    const retried = new RegExp(
      `"deployment_id":"${deployment.id}".*roll_out stopped, again in \\d+ ms: listing Secrets`,
    );
    await eventually('the listener trying the cluster again', () =>
      Promise.resolve(retried.test(listener.output()) ? true : undefined),
    );
    const role = `berth_deployment_${deployment.id.replace(/-/g, '')}`;
    const made = await withClient(testServerUrl(), async (client) => {
      const { rows } = await client.query<{ owner: string; limit: number }>(
        `select pg_get_userbyid(d.datdba) as owner, r.rolconnlimit as limit
           from pg_database d join pg_roles r on r.oid = d.datdba where d.datname = $1`,
        [role],
      );
      return rows[0];
    });
    expect(made).toEqual({ owner: role, limit: 60 });
    expect((await revisionOf(deployment)).status).toBe('DEPLOYING');
  });

  it('outlasts a restart of the control plane: it polls again, as the same listener', async () => {
    await cp.stop();
    await eventually('the listener missing the control plane', () =>
      Promise.resolve(listener.output().includes('polling the control plane failed') || undefined),
    );
    cp = await restartControlPlane(cp);
    audit = new ApiAudit(cp);
    await eventually(
      'the listener polling the restarted control plane',
      async () =>
        (await myListeners()).some((found) => found.connected === true) ? true : undefined,
      45_000,
    );
    expect(await myListeners()).toHaveLength(1);
  });

  it('stops on SIGTERM, and is the same listener after a restart', async () => {
    expect(await listener.stop()).toBe(0);
    expect(listener.output()).toContain('"msg":"stopped"');
    listener = startListener();
    await eventually('the restarted listener polling', () =>
      Promise.resolve(listener.output().includes('listening as') ? true : undefined),
    );
    const found = await myListeners();
    expect(found).toHaveLength(1);
    expect(listener.output()).not.toContain("made the listener's key pair");
  });

  it('never writes a secret to its log', () => {
    expect(everything).toContain('roll_out stopped');
    expect(everything).not.toContain(SECRET_VALUE);
  });
});
