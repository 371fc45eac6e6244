import { expect, type describe } from '@jest/globals';
import { stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { findJailTools, findProgram } from '../../apps/control-plane/src/isolation/jail-tools.js';
import type { ControlPlaneProcess } from './control-plane-process.js';
import { waitForRevision, type Deployment, type Revision } from './deployment-flow.js';

export const PLATFORM_ROOT = resolve('.');

/** Why a tenant's code could not run as another user here, if it could not. */
export async function whyUnsealable(): Promise<string | undefined> {
  if (process.getuid?.() !== 0)
    return 'the tests do not run as root, so Berth cannot drop privileges';
  for (let dir = PLATFORM_ROOT; dir !== dirname(dir); dir = dirname(dir)) {
    if (((await stat(dir)).mode & 0o005) !== 0o005) {
      return `${dir} is not readable by other users, so a runtime dropped to one cannot load Berth`;
    }
  }
  const jail = await findJailTools();
  if (typeof jail === 'string') return jail;
  if (!(await findProgram('slirp4netns')))
    return 'slirp4netns is not installed, so jails cannot have networks of their own';
  return undefined;
}

/**
 * `describe` where tenants can be sealed, else `describe.skip` with the reason said. CI runs as
 * root with bubblewrap installed (.ci/run): there a skip would hide a broken seal, so it fails.
 */
export async function sealableOrSkipped(
  describeBlock: typeof describe,
  what: string,
): Promise<typeof describe | typeof describe.skip> {
  const unsealable = await whyUnsealable();
  if (unsealable && process.env.CI) throw new Error(`${what} cannot run: ${unsealable}`);
  if (unsealable) console.warn(`${what} skipped: ${unsealable}`);
  return unsealable ? describeBlock.skip : describeBlock;
}

/** Creates a deployment with a tenant's key, uploads the archive and waits for its revision. */
export async function deployAs(
  cp: ControlPlaneProcess,
  key: string,
  name: string,
  archive: Buffer,
  sourceConfig: Record<string, unknown> = {},
): Promise<{ deployment: Deployment; revision: Revision }> {
  const created = await cp.api<Deployment>(
    'POST',
    '/v2/deployments',
    {
      name,
      source: 'internal_source',
      source_config: { deployment_type: 'dev', ...sourceConfig },
      source_revision_config: { graph_config_path: 'langgraph.json' },
    },
    key,
  );
  expect(created.status).toBe(201);
  const issued = await cp.api<{ upload_url: string; object_path: string }>(
    'POST',
    `/v2/deployments/${created.body.id}/upload-url`,
    undefined,
    key,
  );
  const put = await fetch(issued.body.upload_url, {
    method: 'PUT',
    headers: { 'content-type': 'application/gzip' },
    body: archive,
  });
  expect(put.ok).toBe(true);
  const patched = await cp.api<Deployment>(
    'PATCH',
    `/v2/deployments/${created.body.id}`,
    { source_revision_config: { source_tarball_path: issued.body.object_path } },
    key,
  );
  expect(patched.status).toBe(200);
  const revision = await waitForRevision(
    cp,
    created.body.id,
    patched.body.latest_revision_id ?? '',
    120_000,
    key,
  );
  const deployment = await cp.api<Deployment>(
    'GET',
    `/v2/deployments/${created.body.id}`,
    undefined,
    key,
  );
  return { deployment: deployment.body, revision };
}
