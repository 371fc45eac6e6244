import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig, KubernetesObjectApi, type V1Deployment } from '@kubernetes/client-node';
import {
  startControlPlane,
  type ControlPlaneProcess,
} from '../../support/control-plane-process.js';
import type { Deployment } from '../../support/deployment-flow.js';
import { startListenerProcess, type ListenerProcess } from '../../support/listener-process.js';
import {
  ApiAudit,
  eventually,
  postExternalDeployment,
  uniqueName,
  type Json,
  type Page,
} from '../control-plane/api-audit.js';

const kubeconfigFile = process.env.KUBECONFIG;
/** An application's runtime image the cluster can pull (berth build-image, built and pushed). */
const image = process.env.BERTH_KUBE_E2E_IMAGE;
const ROLLOUT_MS = 10 * 60_000;

const missing = [
  kubeconfigFile ? undefined : 'KUBECONFIG is not set (no cluster is reachable here)',
  image ? undefined : 'BERTH_KUBE_E2E_IMAGE does not name a runtime image the cluster can pull',
].filter((reason) => reason !== undefined);

if (missing.length > 0) {
  describe('the cluster listener against a real Kubernetes cluster', () => {
    // Nothing here pretends to be a cluster: without one, the suite does not run.
    it.skip(`skipped: ${missing.join('; ')}`, () => {});
  });
  console.warn(`Kubernetes end-to-end suite SKIPPED: ${missing.join('; ')}`);
} else {
  jest.setTimeout(ROLLOUT_MS + 60_000);

  describe('the cluster listener against a real Kubernetes cluster', () => {
    const namespace = `berth-e2e-${randomBytes(4).toString('hex')}`;
    const kube = new KubeConfig();
    let objects: KubernetesObjectApi;
    let cp: ControlPlaneProcess;
    let audit: ApiAudit;
    let work: string;
    let listener: ListenerProcess;
    let listenerId: string;
    let deployment: Deployment;
    let firstRevision: string;

    const api = <T = Json>(method: string, path: string, body?: unknown) =>
      audit.api<T>(method, path, body);
    const revisionStatus = async (revisionId: string): Promise<Json> =>
      (await api('GET', `/v2/deployments/${deployment.id}/revisions/${revisionId}`)).body;
    const untilStatus = (revisionId: string, status: string) =>
      eventually(
        `revision ${revisionId} ${status}`,
        async () => {
          const revision = await revisionStatus(revisionId);
          return revision.status === status ? revision : undefined;
        },
        ROLLOUT_MS,
      );
    const labelled = async (kind: string, apiVersion: string) =>
      (
        await objects.list(
          apiVersion,
          kind,
          namespace,
          undefined,
          undefined,
          undefined,
          undefined,
          `berth.dev/deployment-id=${deployment.id}`,
        )
      ).items;

    beforeAll(async () => {
      kube.loadFromFile(kubeconfigFile ?? '');
      objects = KubernetesObjectApi.makeApiClient(kube);
      await objects.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
      cp = await startControlPlane();
      audit = new ApiAudit(cp);
      work = await mkdtemp(join(tmpdir(), 'berth-kube-e2e-'));
      listener = startListenerProcess({
        hostUrl: cp.url,
        apiKey: cp.apiKey,
        args: [
          '--name',
          'e2e',
          '--namespace',
          namespace,
          '--own-namespace',
          namespace,
          '--identity',
          join(work, 'identity.json'),
          '--kubeconfig',
          kubeconfigFile ?? '',
        ],
      });
      const listeners = await eventually('the listener registered', async () => {
        const page = await api<Page>('GET', '/v2/listeners');
        return page.body.resources.find((resource) => resource.name === 'e2e');
      });
      listenerId = String(listeners.id);
    });

    afterAll(async () => {
      await listener.stop();
      await objects.delete({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
      await cp.dispose();
      await rm(work, { recursive: true, force: true });
    });

    it('deploys a revision: DEPLOYED once its pods are available', async () => {
      deployment = await postExternalDeployment(audit, listenerId, uniqueName('e2e'), {
        source_config: {
          listener_id: listenerId,
          listener_config: { cluster_namespace: namespace },
        },
        source_revision_config: { image_uri: image },
        secrets: [{ name: 'E2E_SECRET', value: 'e2e-value' }],
      });
      firstRevision = String(deployment.latest_revision_id);
      await untilStatus(firstRevision, 'DEPLOYED');
      const deployments = (await labelled('Deployment', 'apps/v1')) as V1Deployment[];
      expect(deployments.map((d) => d.status?.availableReplicas)).toEqual([1, 1]);
      expect((await labelled('Service', 'v1')).length).toBe(2);
    });

    it('fails a revision whose image cannot be pulled, and keeps the one before live', async () => {
      const patched = await api<Deployment>('PATCH', `/v2/deployments/${deployment.id}`, {
        source_revision_config: { image_uri: 'registry.invalid/berth/none:0' },
      });
      expect(patched.status).toBe(200);
      const failed = await untilStatus(String(patched.body.latest_revision_id), 'DEPLOY_FAILED');
      expect(String(failed.status_message)).toContain('cannot be pulled');
      const current = await api<Deployment>('GET', `/v2/deployments/${deployment.id}`);
      expect(current.body.active_revision_id).toBe(firstRevision);
      await eventually('the live revision applied again', async () => {
        const deployments = (await labelled('Deployment', 'apps/v1')) as V1Deployment[];
        const annotations = deployments.map(
          (d) => d.spec?.template.metadata?.annotations?.['berth.dev/revision-id'],
        );
        return annotations.every((id) => id === firstRevision) ? true : undefined;
      });
    });

    it('deletes everything of a deleted deployment', async () => {
      expect((await api('DELETE', `/v2/deployments/${deployment.id}`)).status).toBe(204);
      await eventually(
        'the deployment gone',
        async () =>
          (await api('GET', `/v2/deployments/${deployment.id}`)).status === 404 ? true : undefined,
        ROLLOUT_MS,
      );
      expect(await labelled('Deployment', 'apps/v1')).toEqual([]);
      expect(await labelled('Secret', 'v1')).toEqual([]);
      expect(await labelled('PersistentVolumeClaim', 'v1')).toEqual([]);
    });
  });
}
