import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { constants } from 'node:fs';
import {
  chmod,
  lstat,
  mkdir,
  mkdtemp,
  open,
  readdir,
  readFile,
  rm,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { commitAll } from '../../support/app-fixture.js';
import {
  OTHER_TENANT_KEY,
  startControlPlane,
  type ControlPlaneProcess,
} from '../../support/control-plane-process.js';
import { waitForRevision, type Deployment, type Revision } from '../../support/deployment-flow.js';
import { sealableOrSkipped } from '../../support/tenant-deploy.js';

jest.setTimeout(400_000);

const SECRET = 'root-only-secret-contents';
const LANGGRAPH_JSON = JSON.stringify({ graphs: { agent: './agent.js:graph' } });

/** A one-commit repository (on `main`) of the files given; a link where the value says so. */
async function repository(
  dir: string,
  files: Record<string, string | { linkTo: string }>,
): Promise<string> {
  await mkdir(dir, { mode: 0o755 });
  for (const [name, content] of Object.entries(files)) {
    if (typeof content === 'string') await writeFile(join(dir, name), content);
    else await symlink(content.linkTo, join(dir, name));
  }
  await commitAll(dir, 'a source', true);
  return dir;
}

/** Where the control plane's embedded PostgreSQL answers, as its superuser. */
async function embeddedDatabaseUrl(dataDir: string): Promise<string> {
  const password = (await readFile(join(dataDir, 'postgres.password'), 'utf8')).trim();
  const pid = await readFile(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8');
  const port = pid.split('\n')[3]?.trim();
  return `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
}

/** The OS id claims in the registry that name the deployment. */
async function claimsOf(registry: string, deploymentId: string): Promise<string[]> {
  const claims: string[] = [];
  for (const entry of await readdir(registry)) {
    const text = await readFile(join(registry, entry), 'utf8').catch(() => '');
    if (text.includes(deploymentId)) claims.push(entry);
  }
  return claims;
}

/** The pids of processes whose command line is exactly this. */
async function processesRunning(argv: readonly string[]): Promise<number[]> {
  const wanted = `${argv.join('\0')}\0`;
  const found: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (cmdline === wanted) found.push(Number(entry));
  }
  return found;
}

const describeWhereSealable = await sealableOrSkipped(describe, 'Hostile source tests');

describeWhereSealable(
  'sources that try to make the platform read, hang or keep what it must not',
  () => {
    let cp: ControlPlaneProcess;
    let work: string;
    let registry: string;
    let integrationId: string;

    /** A git_host deployment of the repository, with the tenant's key given. */
    const deployFrom = async (
      name: string,
      repoUrl: string,
      key: string,
      extra: Record<string, unknown> = {},
    ): Promise<Deployment> => {
      const created = await cp.api<Deployment>(
        'POST',
        '/v2/deployments',
        {
          name,
          source: 'git_host',
          source_config: { integration_id: integrationId, repo_url: repoUrl, ...extra },
          source_revision_config: { repo_ref: 'main', graph_config_path: 'langgraph.json' },
        },
        key,
      );
      expect({ status: created.status, body: created.body }).toMatchObject({ status: 201 });
      return created.body;
    };

    /** Waits until the deployment is gone from the API (404); its last answer. */
    const waitUntilDeleted = async (deploymentId: string, key?: string): Promise<number> => {
      const deadline = Date.now() + 120_000;
      for (;;) {
        const { status } = await cp.api('GET', `/v2/deployments/${deploymentId}`, undefined, key);
        if (status === 404 || Date.now() > deadline) return status;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };

    beforeAll(async () => {
      work = await mkdtemp(join(tmpdir(), 'berth-hostile-'));
      await chmod(work, 0o755);
      registry = join(work, 'os-ids');
      await mkdir(registry, { mode: 0o700 });
      cp = await startControlPlane({
        embeddedDatabase: true,
        env: {
          BERTH_ALLOW_UNSEALED_TENANTS: 'false',
          BERTH_ALLOW_LOCAL_SOURCES: 'true',
          BERTH_OS_ID_REGISTRY: registry,
        },
      });
      const install = await cp.api<{ integration_id: string }>(
        'GET',
        '/v1/integrations/git_host/install',
        undefined,
        OTHER_TENANT_KEY,
      );
      integrationId = install.body.integration_id;
    });

    afterAll(async () => {
      await cp.dispose();
      await rm(work, { recursive: true, force: true });
    });

    it('fails a clone whose package.json links to a FIFO, /dev/zero or a root-only file, reading none, and keeps answering', async () => {
      const fifo = join(work, 'trap.fifo');
      execFileSync('mkfifo', [fifo]);
      const secret = join(work, 'root-only');
      await writeFile(secret, SECRET, { mode: 0o600 });
      const targets = { fifo, fifo2: fifo, fifo3: fifo, fifo4: fifo, zero: '/dev/zero', secret };
      const deployments: Deployment[] = [];
      for (const [name, target] of Object.entries(targets)) {
        const repo = await repository(join(work, name), {
          'langgraph.json': LANGGRAPH_JSON,
          'package.json': { linkTo: target },
        });
        // More FIFOs than the thread pool has workers: not one of them may hold a worker.
        deployments.push(await deployFrom(`hostile-${name}`, repo, OTHER_TENANT_KEY));
      }

      const revisions: Revision[] = [];
      for (const deployment of deployments) {
        revisions.push(
          await waitForRevision(
            cp,
            deployment.id,
            deployment.latest_revision_id ?? '',
            120_000,
            OTHER_TENANT_KEY,
          ),
        );
      }
      for (const revision of revisions) {
        expect(revision).toMatchObject({
          status: 'BUILD_FAILED',
          status_message: expect.stringContaining(
            'package.json is (or lies under) a symbolic link, which the platform never follows',
          ),
        });
        expect(JSON.stringify(revision)).not.toContain(SECRET);
      }
      // No one has the FIFO open for reading: a writer that does not wait finds no reader.
      await expect(open(fifo, constants.O_WRONLY | constants.O_NONBLOCK)).rejects.toMatchObject({
        code: 'ENXIO',
      });
      // Every tenant is still served, and the control plane says it can serve.
      const listed = await cp.api<{ resources: unknown[] }>('GET', '/v2/deployments');
      expect(listed.status).toBe(200);
      const other = await cp.api<Deployment[]>(
        'GET',
        '/v2/deployments',
        undefined,
        OTHER_TENANT_KEY,
      );
      expect(other.status).toBe(200);
      expect((await fetch(`${cp.url}/ok`)).status).toBe(200);
    });

    it('ends a build in progress when its deployment is deleted, and the deletion completes', async () => {
      const repo = await repository(join(work, 'sleeper'), { 'langgraph.json': LANGGRAPH_JSON });
      const deployment = await deployFrom('sleeper', repo, OTHER_TENANT_KEY, {
        build_command: 'sleep 86400',
      });
      const revisionId = deployment.latest_revision_id ?? '';
      const deadline = Date.now() + 120_000;
      const logs = (): Promise<string[]> =>
        cp
          .api<{ resources: { message: string }[] }>(
            'GET',
            `/v2/deployments/${deployment.id}/revisions/${revisionId}/logs?type=build`,
            undefined,
            OTHER_TENANT_KEY,
          )
          .then(({ body }) => body.resources.map((line) => line.message));
      while (!(await logs()).some((line) => line.includes('Running the build command'))) {
        if (Date.now() > deadline) throw new Error(`The build never ran:\n${cp.output()}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      while ((await processesRunning(['sleep', '86400'])).length === 0) {
        if (Date.now() > deadline) throw new Error('The build command never started');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }

      const deleted = await cp.api(
        'DELETE',
        `/v2/deployments/${deployment.id}`,
        undefined,
        OTHER_TENANT_KEY,
      );
      expect(deleted.status).toBe(204);
      expect(await waitUntilDeleted(deployment.id, OTHER_TENANT_KEY)).toBe(404);
      expect(await processesRunning(['sleep', '86400'])).toEqual([]);
      await expect(
        lstat(join(cp.dataDir, 'builds', 'deployments', deployment.id)),
      ).rejects.toMatchObject({ code: 'ENOENT' });
    });

    it('deletes a deployment whose home holds directories its user closed inside each other', async () => {
      const repo = await repository(join(work, 'closer'), { 'langgraph.json': LANGGRAPH_JSON });
      const deployment = await deployFrom('closer', repo, OTHER_TENANT_KEY, {
        build_command:
          'mkdir -p "$HOME/d1/d2/d3" && touch "$HOME/d1/d2/d3/f" && ' +
          'chmod 000 "$HOME/d1/d2/d3" "$HOME/d1/d2" && chmod 100 "$HOME/d1"',
      });
      const revision = await waitForRevision(
        cp,
        deployment.id,
        deployment.latest_revision_id ?? '',
        120_000,
        OTHER_TENANT_KEY,
      );
      expect(revision.status).not.toBe('BUILD_FAILED');
      const tree = join(cp.dataDir, 'builds', 'deployments', deployment.id);
      expect((await lstat(join(tree, 'home', 'd1'))).mode & 0o777).toBe(0o100);
      const history = await cp.api<{
        resources: { event: string; changes: { database?: string } }[];
      }>('GET', `/v2/deployments/${deployment.id}/history`, undefined, OTHER_TENANT_KEY);
      const database = history.body.resources.find((e) => e.event === 'DeploymentUrlAssigned')
        ?.changes.database;
      expect(database).toMatch(/^berth_deployment_/);
      expect(await claimsOf(registry, deployment.id)).toHaveLength(1);

      const deleted = await cp.api(
        'DELETE',
        `/v2/deployments/${deployment.id}`,
        undefined,
        OTHER_TENANT_KEY,
      );
      expect(deleted.status).toBe(204);
      expect(await waitUntilDeleted(deployment.id, OTHER_TENANT_KEY)).toBe(404);

      await expect(lstat(tree)).rejects.toMatchObject({ code: 'ENOENT' });
      expect(await claimsOf(registry, deployment.id)).toEqual([]);
      const client = new pg.Client({ connectionString: await embeddedDatabaseUrl(cp.dataDir) });
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

    it('says in its log and its revision status why a deployment could not be deleted yet, and deletes it once it can', async () => {
      const repo = await repository(join(work, 'holder'), { 'langgraph.json': LANGGRAPH_JSON });
      const deployment = await deployFrom('holder', repo, OTHER_TENANT_KEY, {
        build_command: 'mkdir -p "$HOME/kept" && touch "$HOME/kept/file"',
      });
      const revisionId = deployment.latest_revision_id ?? '';
      await waitForRevision(cp, deployment.id, revisionId, 120_000, OTHER_TENANT_KEY);
      const tree = join(cp.dataDir, 'builds', 'deployments', deployment.id);
      // What not even root may remove until the attribute goes: the tear-down fails meanwhile.
      const held = join(tree, 'home', 'kept', 'file');
      execFileSync('chattr', ['+i', held]);
      try {
        const deleted = await cp.api(
          'DELETE',
          `/v2/deployments/${deployment.id}`,
          undefined,
          OTHER_TENANT_KEY,
        );
        expect(deleted.status).toBe(204);
        /** The first line of its deploy log that matches, within a minute. */
        const waitForLogLine = async (pattern: RegExp): Promise<string | undefined> => {
          const deadline = Date.now() + 60_000;
          for (;;) {
            const { body } = await cp.api<{ resources: { message: string }[] }>(
              'GET',
              `/v2/deployments/${deployment.id}/revisions/${revisionId}/logs?type=deploy`,
              undefined,
              OTHER_TENANT_KEY,
            );
            const found = body.resources.map((line) => line.message).find((m) => pattern.test(m));
            if (found || Date.now() > deadline) return found;
            await new Promise((resolve) => setTimeout(resolve, 200));
          }
        };
        const failure = await waitForLogLine(/^Deleting the deployment failed/);
        expect(failure).toMatch(
          /^Deleting the deployment failed \(attempt \d+\): home still holds what could not be removed \(kept\): EPERM; trying again in \d+ s$/,
        );
        const state = await cp.api<Deployment & { status: string }>(
          'GET',
          `/v2/deployments/${deployment.id}`,
          undefined,
          OTHER_TENANT_KEY,
        );
        expect(state.body.status).toBe('AWAITING_DELETE');
        const revision = await cp.api<Revision>(
          'GET',
          `/v2/deployments/${deployment.id}/revisions/${revisionId}`,
          undefined,
          OTHER_TENANT_KEY,
        );
        expect(revision.body.status_message).toBe(
          'Deleting the deployment failed: home still holds what could not be removed (kept): ' +
            'EPERM; it is tried again until it succeeds (see the deploy log)',
        );
        // Tried again (its first retry comes 2 s after the first failure).
        expect(await waitForLogLine(/^Deleting the deployment failed \(attempt 2\)/)).toBeDefined();
      } finally {
        execFileSync('chattr', ['-i', held]);
      }
      expect(await waitUntilDeleted(deployment.id, OTHER_TENANT_KEY)).toBe(404);
      await expect(lstat(tree)).rejects.toMatchObject({ code: 'ENOENT' });
      expect(await claimsOf(registry, deployment.id)).toEqual([]);
    });
  },
);
