import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  startControlPlane,
  type ControlPlaneProcess,
} from '../../support/control-plane-process.js';
import type { Deployment } from '../../support/deployment-flow.js';
import { freePort } from '../../support/free-port.js';
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
 * fails as it does when the API server is down. What the listener decides without the cluster (its
 * registration, the namespaces it may use, the revision's failures, its retries) is what this
 * checks; test/integration/cluster-listener/kubernetes-e2e.test.ts applies revisions to a real one.
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

  it('does not fail a revision while the cluster cannot be reached: it tries again', async () => {
    const [mine] = await myListeners();
    const listenerId = String(mine?.id);
    const deployment = await postExternalDeployment(audit, listenerId, uniqueName('waiting'), {
      source_config: { listener_id: listenerId, listener_config: { cluster_namespace: 'agents' } },
      secrets: [{ name: 'OPENAI_API_KEY', value: SECRET_VALUE }],
    });
    const retried = new RegExp(`"deployment_id":"${deployment.id}".*roll_out stopped, again in`);
    await eventually('the listener trying the cluster again', () =>
      Promise.resolve(retried.test(listener.output()) ? true : undefined),
    );
    expect((await revisionOf(deployment)).status).toBe('QUEUED');
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
