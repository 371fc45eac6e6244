import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { createHash } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import {
  startControlPlane,
  type ControlPlaneProcess,
} from '../../support/control-plane-process.js';
import {
  createSourceDeployment,
  packExample,
  waitForRevision,
} from '../../support/deployment-flow.js';

jest.setTimeout(240_000);

interface HistoryEntry {
  event: string;
  revision_id: string | null;
  changes: Record<string, unknown>;
}

describe('an uploaded tarball is the code its revision builds, every time', () => {
  let cp: ControlPlaneProcess;

  beforeAll(async () => {
    cp = await startControlPlane();
  });

  afterAll(async () => {
    await cp.dispose();
  });

  const issue = async (deploymentId: string) =>
    (
      await cp.api<{ upload_url: string; object_path: string }>(
        'POST',
        `/v2/deployments/${deploymentId}/upload-url`,
      )
    ).body;

  const put = (url: string, body: Buffer) =>
    fetch(url, { method: 'PUT', headers: { 'content-type': 'application/gzip' }, body });

  async function revisionFrom(deploymentId: string, objectPath: string): Promise<string> {
    const patched = await cp.api<{ latest_revision_id: string }>(
      'PATCH',
      `/v2/deployments/${deploymentId}`,
      { source_revision_config: { source_tarball_path: objectPath } },
    );
    expect(patched.status).toBe(200);
    const revision = await waitForRevision(cp, deploymentId, patched.body.latest_revision_id);
    expect(revision.status).toBe('DEPLOYED');
    return revision.id;
  }

  it('takes one tarball per upload URL, records its SHA-256 and refuses to build a changed one', async () => {
    const deployment = await createSourceDeployment(cp, `integrity-${Date.now()}`);
    const archive = await packExample();
    const first = await issue(deployment.id);
    expect((await put(first.upload_url, archive)).status).toBe(200);

    const again = await put(first.upload_url, gzipSync('other code'));
    expect(again.status).toBe(409);
    expect(await again.json()).toEqual({ detail: expect.stringContaining('has been used') });

    const firstRevision = await revisionFrom(deployment.id, first.object_path);
    const history = await cp.api<{ resources: HistoryEntry[] }>(
      'GET',
      `/v2/deployments/${deployment.id}/history`,
    );
    const created = history.body.resources.find(
      (entry) => entry.event === 'RevisionCreated' && entry.revision_id === firstRevision,
    );
    expect(created?.changes.source_tarball_sha256).toBe(
      createHash('sha256').update(archive).digest('hex'),
    );

    const second = await issue(deployment.id);
    expect((await put(second.upload_url, archive)).status).toBe(200);
    const secondRevision = await revisionFrom(deployment.id, second.object_path);

    // Someone with the disk changes the first tarball; its build is no longer kept.
    await writeFile(join(cp.dataDir, first.object_path), gzipSync('changed code'));
    await rm(join(cp.dataDir, 'builds', 'deployments', deployment.id, 'revisions', firstRevision), {
      recursive: true,
      force: true,
    });
    const redeployed = await cp.api(
      'POST',
      `/v2/deployments/${deployment.id}/revisions/${firstRevision}/redeploy`,
    );
    expect(redeployed.status).toBe(200);
    const refused = await waitForRevision(cp, deployment.id, firstRevision);
    expect(refused.status).toBe('BUILD_FAILED');
    expect(refused.status_message).toContain('not the one this revision was created from');
    const current = await cp.api<{ active_revision_id: string }>(
      'GET',
      `/v2/deployments/${deployment.id}`,
    );
    expect(current.body.active_revision_id).toBe(secondRevision);
  });
});
