import { appendFile, cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@langchain/langgraph-sdk';
import {
  startControlPlane,
  TEST_TENANT_ID,
  type ControlPlaneProcess,
} from '../../support/control-plane-process.js';
import { EXAMPLE_APP_DIR, type Deployment, type Revision } from '../../support/deployment-flow.js';
import {
  INSTALL_TIMEOUT_MS,
  installOfficialCli,
  officialCli,
  type OfficialCliResult,
} from '../../support/official-cli.js';

const DEPLOY_TIMEOUT_MS = 240_000;

function jsonLines(text: string): Record<string, unknown>[] {
  return text
    .split('\n')
    .filter((line) => line.trim().startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

function expectSuccess(result: OfficialCliResult): void {
  if (result.code !== 0) throw new Error(`exit ${result.code}\n${result.stdout}\n${result.stderr}`);
}

describe('the official langgraphjs deploy CLI, unchanged, against Berth', () => {
  let controlPlane: ControlPlaneProcess;
  let entry: string;
  let work: string;
  let app: string;
  let hostArgs: string[];
  let deploymentId = '';
  let url = '';

  beforeAll(async () => {
    entry = await installOfficialCli();
    controlPlane = await startControlPlane();
    work = await mkdtemp(join(tmpdir(), 'berth-official-cli-'));
    app = join(work, 'official-agent');
    await cp(EXAMPLE_APP_DIR, app, {
      recursive: true,
      filter: (source) => !source.split(/[\\/]/).includes('node_modules'),
    });
    await writeFile(join(app, '.env'), 'GREETING=hello from the official CLI\n');
    hostArgs = ['--host-url', controlPlane.url, '--api-key', controlPlane.apiKey];
  }, INSTALL_TIMEOUT_MS);

  afterAll(async () => {
    await controlPlane.dispose();
    await rm(work, { recursive: true, force: true });
  }, 60_000);

  const cli = (args: readonly string[], cwd = app): Promise<OfficialCliResult> =>
    officialCli(entry, args, cwd);

  it(
    'creates the deployment, uploads, builds and deploys it',
    async () => {
      const result = await cli(['deploy', '--remote', '--no-input', ...hostArgs]);
      expectSuccess(result);
      expect(result.stdout).toContain('Deployment successful!');
      const { body } = await controlPlane.api<{ resources: Deployment[] }>(
        'GET',
        '/v2/deployments?name=official-agent',
      );
      expect(body.resources).toHaveLength(1);
      const deployment = body.resources[0] as Deployment;
      deploymentId = deployment.id;
      url = deployment.source_config.custom_url as string;
      expect(result.stdout).toContain(`URL: ${url}`);
      expect(deployment.source_revision_config.graph_config_path).toBe('langgraph.json');
      expect(deployment.secrets).toEqual([{ name: 'GREETING', value: '********' }]);

      const statusUrl = `${controlPlane.url}/o/${TEST_TENANT_ID}/host/deployments/${deploymentId}`;
      expect(result.stdout).toContain(statusUrl);
      const status = await fetch(statusUrl, {
        headers: { 'x-api-key': controlPlane.apiKey },
        redirect: 'manual',
      });
      expect(status.status).toBe(302);
      expect(status.headers.get('location')).toBe(`/v2/deployments/${deploymentId}`);
    },
    DEPLOY_TIMEOUT_MS,
  );

  it(
    'deploys a change to the same deployment as a second revision (--json)',
    async () => {
      await appendFile(join(app, 'src', 'agent.ts'), '\n// changed for the official CLI test\n');
      const result = await cli(['deploy', '--remote', '--no-input', '--json', ...hostArgs]);
      expectSuccess(result);
      expect(jsonLines(result.stdout).at(-1)).toMatchObject({
        event: 'result',
        status: 'succeeded',
        deployment_id: deploymentId,
        url,
      });
      const { body } = await controlPlane.api<{ resources: Deployment[] }>(
        'GET',
        '/v2/deployments?name_contains=official-agent',
      );
      expect(body.resources.map((deployment) => deployment.id)).toEqual([deploymentId]);
      const revisions = await controlPlane.api<{ resources: Revision[] }>(
        'GET',
        `/v2/deployments/${deploymentId}/revisions`,
      );
      expect(revisions.body.resources).toHaveLength(2);
      expect(revisions.body.resources[0]?.status).toBe('DEPLOYED');
    },
    DEPLOY_TIMEOUT_MS,
  );

  it('serves a run of the deployed graph through the official SDK', async () => {
    const client = new Client({ apiUrl: url, apiKey: controlPlane.apiKey });
    const state = (await client.runs.wait(null, 'agent', {
      input: { messages: [{ role: 'user', content: 'Weather in Oslo?' }] },
    })) as { messages: unknown[] };
    expect(state.messages.length).toBeGreaterThan(1);
  }, 60_000);

  it('lists the deployment and its revisions', async () => {
    const list = await cli(['deploy', 'list', ...hostArgs]);
    expectSuccess(list);
    expect(list.stdout).toContain(deploymentId);
    expect(list.stdout).toContain('official-agent');

    const revisions = await cli(['deploy', 'revisions', 'list', deploymentId, ...hostArgs]);
    expectSuccess(revisions);
    const { body } = await controlPlane.api<{ resources: Revision[] }>(
      'GET',
      `/v2/deployments/${deploymentId}/revisions`,
    );
    for (const revision of body.resources) expect(revisions.stdout).toContain(revision.id);
  }, 60_000);

  it('reads the build and the deploy logs', async () => {
    const build = await cli([
      'deploy',
      'logs',
      '--type',
      'build',
      '--deployment-id',
      deploymentId,
      ...hostArgs,
    ]);
    expectSuccess(build);
    expect(build.stdout).toContain('Using latest revision:');
    expect(build.stdout).toMatch(/\[\S+ ?\S*\] \[INFO\] /);
    expect(build.stdout).not.toContain('No log entries found.');

    const deploy = await cli(['deploy', 'logs', '--deployment-id', deploymentId, ...hostArgs]);
    expectSuccess(deploy);
    expect(deploy.stdout).toMatch(/\[INFO\] /);
    expect(deploy.stdout).not.toContain('No log entries found.');
  }, 60_000);

  it('deletes the deployment', async () => {
    const result = await cli(['deploy', 'delete', deploymentId, '--force', ...hostArgs]);
    expectSuccess(result);
    const { body } = await controlPlane.api<{ resources: Deployment[] }>(
      'GET',
      '/v2/deployments?name=official-agent',
    );
    expect(body.resources.filter((deployment) => deployment.status !== 'AWAITING_DELETE')).toEqual(
      [],
    );
  }, 60_000);
});
