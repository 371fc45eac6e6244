import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  commitAll,
  exampleAppWithEnvGraph,
  tag,
  type AppFixture,
} from '../../support/app-fixture.js';
import {
  startControlPlane,
  type ControlPlaneProcess,
} from '../../support/control-plane-process.js';
import { waitForRevision, type Deployment, type Revision } from '../../support/deployment-flow.js';

jest.setTimeout(240_000);

type WithSha = {
  source_revision_config: { repo_commit_sha: string | null; repo_ref: string | null };
};

describe('git_host deployments cloned by the local listener', () => {
  let cp: ControlPlaneProcess;
  let repo: AppFixture;
  let integrationId: string;
  let firstCommit: string;
  let deployment: Deployment;
  let secondCommit: string;
  let pushedRevision: string;

  beforeAll(async () => {
    cp = await startControlPlane();
    repo = await exampleAppWithEnvGraph();
    firstCommit = await commitAll(repo.dir, 'first', true);
    await tag(repo.dir, 'v1');
    const install = await cp.api<{ integration_id: string }>(
      'GET',
      '/v1/integrations/git_host/install',
    );
    integrationId = install.body.integration_id;
  });

  afterAll(async () => {
    await cp.dispose();
    await repo.remove();
  });

  it('clones the branch, records the commit and serves it', async () => {
    const created = await cp.api<Deployment>('POST', '/v2/deployments', {
      name: 'from-git',
      source: 'git_host',
      source_config: { integration_id: integrationId, repo_url: repo.dir, build_on_push: true },
      source_revision_config: { repo_ref: 'main', graph_config_path: 'langgraph.json' },
    });
    expect(created.status).toBe(201);
    deployment = created.body;
    expect(deployment.latest_revision_id).toEqual(expect.any(String));
    const revision = await waitForRevision(cp, deployment.id, deployment.latest_revision_id ?? '');
    expect(revision.status).toBe('DEPLOYED');
    expect((revision as Revision & WithSha).source_revision_config.repo_commit_sha).toBe(
      firstCommit,
    );

    const { body } = await cp.api<Deployment & WithSha>('GET', `/v2/deployments/${deployment.id}`);
    expect(body.source_revision_config.repo_commit_sha).toBe(firstCommit);
    const ok = await fetch(`${body.source_config.custom_url ?? ''}/ok`);
    expect(ok.status).toBe(200);
  });

  it('builds a new revision of the pushed branch on a push notification', async () => {
    await writeFile(join(repo.dir, 'CHANGELOG.md'), '# second commit\n');
    secondCommit = await commitAll(repo.dir, 'second');
    const elsewhere = await cp.api<{ revisions: unknown[] }>(
      'POST',
      `/v1/integrations/git_host/${integrationId}/push`,
      { repo_url: repo.dir, ref: 'refs/heads/feature' },
    );
    expect(elsewhere).toMatchObject({ status: 202, body: { revisions: [] } });

    const pushed = await cp.api<{ revisions: { deployment_id: string; revision_id: string }[] }>(
      'POST',
      `/v1/integrations/git_host/${integrationId}/push`,
      { repo_url: repo.dir, ref: 'refs/heads/main', after: secondCommit },
    );
    expect(pushed.status).toBe(202);
    expect(pushed.body.revisions).toHaveLength(1);
    const revisionId = pushed.body.revisions[0]?.revision_id ?? '';
    expect(revisionId).not.toBe(deployment.latest_revision_id);
    const revision = (await waitForRevision(cp, deployment.id, revisionId)) as Revision & WithSha;
    expect(revision.status).toBe('DEPLOYED');
    expect(revision.source_revision_config.repo_commit_sha).toBe(secondCommit);
    expect(revision.trigger).toBe('push');
    pushedRevision = revisionId;

    const history = await cp.api<{
      resources: { event: string; actor: { kind: string } | null }[];
    }>('GET', `/v2/deployments/${deployment.id}/history`);
    const created = history.body.resources.filter((entry) => entry.event === 'RevisionCreated');
    expect(created.at(-1)?.actor).toMatchObject({
      kind: 'git_host',
      integration_id: integrationId,
    });
  });

  it("answers a pushed revision's changes from the checkouts it keeps, with its commits since", async () => {
    const changes = await cp.api<{
      against: string;
      source_kept: boolean;
      files: { path: string; change: string; diff?: string }[];
      commit_range: {
        from: string;
        to: string;
        commits: { sha: string; message: string }[];
        truncated: boolean;
        reason: null;
      };
    }>('GET', `/v2/deployments/${deployment.id}/revisions/${pushedRevision}/changes`);
    expect(changes.status).toBe(200);
    expect(changes.body).toMatchObject({
      against: deployment.latest_revision_id,
      source_kept: true,
      commit_range: {
        from: firstCommit,
        to: secondCommit,
        commits: [{ sha: secondCommit, message: 'second' }],
        truncated: false,
        reason: null,
      },
    });
    expect(changes.body.files).toContainEqual({
      path: 'CHANGELOG.md',
      change: 'added',
      diff: '--- a/CHANGELOG.md\n+++ b/CHANGELOG.md\n@@ -0,0 +1,1 @@\n+# second commit\n',
    });
    expect(changes.body.files.map((file) => file.path)).not.toContain('node_modules');
  });

  it('deploys a tag given as refs/tags/ from a file:// URL, and refuses build_on_push for it', async () => {
    const refused = await cp.api<{ detail: string }>('POST', '/v2/deployments', {
      name: 'from-tag-refused',
      source: 'git_host',
      source_config: {
        integration_id: integrationId,
        repo_url: `file://${repo.dir}`,
        build_on_push: true,
      },
      source_revision_config: { repo_ref: 'refs/tags/v1', graph_config_path: 'langgraph.json' },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toMatch(/build_on_push/);

    const created = await cp.api<Deployment>('POST', '/v2/deployments', {
      name: 'from-tag',
      source: 'git_host',
      source_config: { integration_id: integrationId, repo_url: `file://${repo.dir}` },
      source_revision_config: { repo_ref: 'refs/tags/v1', graph_config_path: 'langgraph.json' },
    });
    expect(created.status).toBe(201);
    const revision = (await waitForRevision(
      cp,
      created.body.id,
      created.body.latest_revision_id ?? '',
    )) as Revision & WithSha;
    expect(revision.status).toBe('DEPLOYED');
    expect(revision.source_revision_config.repo_commit_sha).toBe(firstCommit);
  });

  it("ends a revision of a branch that does not exist BUILD_FAILED with git's reason", async () => {
    const patched = await cp.api<Deployment>('PATCH', `/v2/deployments/${deployment.id}`, {
      source_revision_config: { repo_ref: 'no-such-branch' },
    });
    expect(patched.status).toBe(200);
    const revision = await waitForRevision(
      cp,
      deployment.id,
      patched.body.latest_revision_id ?? '',
    );
    expect(revision.status).toBe('BUILD_FAILED');
    expect(revision.status_message).toMatch(/git clone/);
  });
});
