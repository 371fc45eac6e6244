import { resolve } from 'node:path';
import { packDirectory } from '#libs/source-archive';
import type { ControlPlaneProcess } from './control-plane-process.js';

export const EXAMPLE_APP_DIR = resolve('examples/agent');
const FINAL = new Set([
  'DEPLOYED',
  'BUILD_FAILED',
  'DEPLOY_FAILED',
  'SKIPPED',
  'INTERRUPTED',
  'CREATE_FAILED',
]);

export type Revision = { id: string; status: string; status_message: string | null } & Record<
  string,
  unknown
>;
export type Deployment = {
  id: string;
  name: string;
  status: string;
  latest_revision_id: string | null;
  active_revision_id: string | null;
  source_config: Record<string, unknown> & { custom_url: string | null };
  source_revision_config: Record<string, string | null>;
} & Record<string, unknown>;

export async function packExample(dir = EXAMPLE_APP_DIR): Promise<Buffer> {
  return (await packDirectory(dir)).archive;
}

/** Asks for an upload URL and PUTs the tarball there; returns the object path to name in a PATCH. */
export async function uploadSource(
  cp: ControlPlaneProcess,
  deploymentId: string,
  archive: Buffer,
): Promise<string> {
  const issued = await cp.api<{ upload_url: string; object_path: string }>(
    'POST',
    `/v2/deployments/${deploymentId}/upload-url`,
  );
  if (issued.status !== 200)
    throw new Error(`upload-url: ${issued.status} ${JSON.stringify(issued.body)}`);
  const put = await fetch(issued.body.upload_url, {
    method: 'PUT',
    headers: { 'content-type': 'application/gzip' },
    body: archive,
  });
  if (!put.ok) throw new Error(`PUT upload: ${put.status} ${await put.text()}`);
  return issued.body.object_path;
}

export async function createSourceDeployment(
  cp: ControlPlaneProcess,
  name: string,
  secrets: { name: string; value: string }[] = [],
): Promise<Deployment> {
  const created = await cp.api<Deployment>('POST', '/v2/deployments', {
    name,
    source: 'internal_source',
    source_config: { deployment_type: 'dev' },
    source_revision_config: { graph_config_path: 'langgraph.json' },
    secrets,
  });
  if (created.status !== 201)
    throw new Error(`create: ${created.status} ${JSON.stringify(created.body)}`);
  return created.body;
}

/** PATCHes a new revision from an uploaded tarball; returns the deployment as the PATCH answered. */
export async function patchSource(
  cp: ControlPlaneProcess,
  deploymentId: string,
  archive: Buffer,
  extra: Record<string, unknown> = {},
): Promise<Deployment> {
  const objectPath = await uploadSource(cp, deploymentId, archive);
  const patched = await cp.api<Deployment>('PATCH', `/v2/deployments/${deploymentId}`, {
    source_revision_config: { source_tarball_path: objectPath },
    ...extra,
  });
  if (patched.status !== 200)
    throw new Error(`patch: ${patched.status} ${JSON.stringify(patched.body)}`);
  return patched.body;
}

/** Polls the revision, as the interface's typical flow does, until it reaches a final status. */
export async function waitForRevision(
  cp: ControlPlaneProcess,
  deploymentId: string,
  revisionId: string,
  timeoutMs = 120_000,
  key: string = cp.apiKey,
): Promise<Revision> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { body } = await cp.api<Revision>(
      'GET',
      `/v2/deployments/${deploymentId}/revisions/${revisionId}`,
      undefined,
      key,
    );
    if (FINAL.has(body.status)) return body;
    if (Date.now() > deadline) {
      throw new Error(
        `Revision ${revisionId} still ${body.status} after ${timeoutMs} ms:\n${cp.output()}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Waits until the revision's status is the one given (for states a test wants to catch). */
export async function waitForStatus(
  cp: ControlPlaneProcess,
  deploymentId: string,
  revisionId: string,
  status: string,
  timeoutMs = 120_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { body } = await cp.api<Revision>(
      'GET',
      `/v2/deployments/${deploymentId}/revisions/${revisionId}`,
    );
    if (body.status === status) return;
    if (FINAL.has(body.status) || Date.now() > deadline) {
      throw new Error(`Revision ${revisionId} is ${body.status}, never ${status}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export async function revisionLogs(
  cp: ControlPlaneProcess,
  deploymentId: string,
  revisionId: string,
  type?: 'build' | 'deploy',
): Promise<string[]> {
  const query = type ? `?type=${type}` : '';
  const { body } = await cp.api<{ resources: { message: string }[] }>(
    'GET',
    `/v2/deployments/${deploymentId}/revisions/${revisionId}/logs${query}`,
  );
  return body.resources.map((line) => line.message);
}
