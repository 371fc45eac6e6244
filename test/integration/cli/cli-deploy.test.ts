import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { appendFile, cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  startControlPlane,
  type ControlPlaneProcess,
} from '../../support/control-plane-process.js';
import { addGraph } from '../../support/app-fixture.js';
import {
  createSourceDeployment,
  EXAMPLE_APP_DIR,
  type Deployment,
  type Revision,
} from '../../support/deployment-flow.js';
import { freePort } from '../../support/free-port.js';
import { createTestDatabase } from '../../support/test-database.js';

const CLI = resolve('dist/apps/cli/src/main.js');

/** Resolves once `met` holds, looking every 100 ms; fails naming `what` after `ms`. */
async function waitUntil(ms: number, what: string, met: () => boolean): Promise<void> {
  const deadline = Date.now() + ms;
  while (!met()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
const DEPLOY_TIMEOUT_MS = 180_000;

interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** The environment of the test process, without anything of Berth's that would leak in. */
function cleanEnvironment(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value === undefined || name.startsWith('BERTH_')) continue;
    if (name === 'DATABASE_URL' || name === 'EVENTSTORE_URL') continue;
    env[name] = value;
  }
  return env;
}

/** The built CLI as a real process, stdin not a terminal. */
function berth(
  args: readonly string[],
  options: { cwd: string; env: Record<string, string | undefined> },
): Promise<CliResult> {
  return new Promise((done, fail) => {
    const env: Record<string, string> = cleanEnvironment();
    for (const [name, value] of Object.entries(options.env)) {
      if (value === undefined) Reflect.deleteProperty(env, name);
      else env[name] = value;
    }
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: options.cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', fail);
    child.on('close', (code) => {
      done({ code, stdout, stderr });
    });
  });
}

function jsonLines(text: string): Record<string, unknown>[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** One line on stderr, starting with "berth:", and no stack trace. */
function expectOneLineError(result: CliResult, pattern: RegExp): void {
  expect(result.code).toBe(1);
  const lines = result.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^berth: /);
  expect(lines[0]).toMatch(pattern);
  expect(result.stderr).not.toMatch(/\n\s+at /);
}

describe('berth deploy, end to end against a control plane', () => {
  let controlPlane: ControlPlaneProcess;
  let work: string;
  /** A copy of the example application, in a directory whose name needs cleaning up. */
  let app: string;
  let env: Record<string, string | undefined>;
  let deploymentId = '';
  let firstRevisionId = '';
  let url = '';

  beforeAll(async () => {
    controlPlane = await startControlPlane();
    work = await mkdtemp(join(tmpdir(), 'berth-cli-'));
    app = join(work, 'Weather Agent');
    await cp(EXAMPLE_APP_DIR, app, {
      recursive: true,
      filter: (source) => !source.split(/[\\/]/).includes('node_modules'),
    });
    await writeFile(
      join(app, '.env'),
      [
        '# secrets of the application',
        `export BERTH_API_KEY=${controlPlane.apiKey}`,
        'GREETING="hello from .env"',
        "WEATHER_TOKEN='w-123' # a comment",
        'PATH=/not/sent',
        '',
      ].join('\n'),
    );
    env = { BERTH_HOST_URL: controlPlane.url, BERTH_API_KEY: controlPlane.apiKey };
  }, 120_000);

  afterAll(async () => {
    await controlPlane.dispose();
    await rm(work, { recursive: true, force: true });
  }, 60_000);

  it('prints help for every command', async () => {
    for (const args of [
      ['deploy', '--help'],
      ['deploy', 'list', '--help'],
      ['deploy', 'revisions', '--help'],
      ['deploy', 'logs', '--help'],
      ['deploy', 'delete', '--help'],
    ]) {
      const result = await berth(args, { cwd: work, env: {} });
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/^Usage: berth deploy/);
    }
    const top = await berth(['--help'], { cwd: work, env: {} });
    expect(top.stdout).toContain('deploy');
  }, 90_000);

  it(
    'deploys the example application with the key from .env and prints its URL',
    async () => {
      // No BERTH_API_KEY in the environment: the key comes from the project's .env.
      const result = await berth(['deploy'], {
        cwd: app,
        env: { BERTH_HOST_URL: controlPlane.url },
      });
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('as "weather-agent"');
      expect(result.stdout).toContain('Secrets from .env: GREETING, WEATHER_TOKEN');
      expect(result.stdout).toMatch(/Deployed \(DEPLOYED\)/);
      url = /URL: (\S+)/.exec(result.stdout)?.[1] ?? '';
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

      const ok = await fetch(`${url}/ok`);
      expect(ok.status).toBe(200);
      const run = await fetch(`${url}/runs/wait`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': controlPlane.apiKey },
        body: JSON.stringify({
          assistant_id: 'agent',
          input: { messages: [{ role: 'user', content: 'Weather in Oslo?' }] },
        }),
      });
      expect(run.status).toBe(200);
      const state = (await run.json()) as { messages: { content: unknown }[] };
      expect(state.messages.length).toBeGreaterThan(1);

      const { body } = await controlPlane.api<{ resources: Deployment[] }>(
        'GET',
        '/v2/deployments?name=weather-agent',
      );
      expect(body.resources).toHaveLength(1);
      const deployment = body.resources[0] as Deployment;
      deploymentId = deployment.id;
      firstRevisionId = deployment.active_revision_id ?? '';
      expect(deployment.source_config.custom_url).toBe(url);
      expect(deployment.source_config.deployment_type).toBe('dev');
      expect(deployment.secrets).toEqual([
        { name: 'GREETING', value: '********' },
        { name: 'WEATHER_TOKEN', value: '********' },
      ]);
    },
    DEPLOY_TIMEOUT_MS,
  );

  it(
    'deploys again after a change: the same deployment, a new DEPLOYED revision (--json)',
    async () => {
      await appendFile(join(app, 'src', 'agent.ts'), '\n// changed by the CLI test\n');
      const result = await berth(['deploy', '--json'], { cwd: app, env });
      expect(result.code).toBe(0);
      const events = jsonLines(result.stdout);
      expect(events[0]).toMatchObject({ event: 'deployment', deployment_id: deploymentId });
      expect(events.filter((event) => event.event === 'revision').at(-1)).toMatchObject({
        status: 'DEPLOYED',
      });
      const last = events.at(-1);
      expect(last).toMatchObject({ event: 'deployed', deployment_id: deploymentId, url });
      expect(last?.revision_id).not.toBe(firstRevisionId);
      expect((await fetch(`${url}/ok`)).status).toBe(200);

      const revisions = await berth(['deploy', 'revisions', deploymentId, '--json'], {
        cwd: work,
        env,
      });
      expect(revisions.code).toBe(0);
      const listed = jsonLines(revisions.stdout);
      expect(listed.map((revision) => revision.id)).toEqual([last?.revision_id, firstRevisionId]);
      expect(listed.map((revision) => revision.status)).toEqual(['DEPLOYED', 'DEPLOYED']);
      expect(listed[0]?.active).toBe(true);

      const table = await berth(['deploy', 'revisions', 'weather-agent'], { cwd: work, env });
      expect(table.stdout.split('\n')[0]).toMatch(/^ID\s+STATUS\s+CREATED\s+ACTIVE\s+MESSAGE/);
      expect(table.stdout).toContain(firstRevisionId);
    },
    DEPLOY_TIMEOUT_MS,
  );

  it('lists the deployment, as a table and as JSON', async () => {
    const json = await berth(['deploy', 'list', '--json'], { cwd: work, env });
    expect(json.code).toBe(0);
    const listed = jsonLines(json.stdout);
    expect(listed).toContainEqual(
      expect.objectContaining({
        id: deploymentId,
        name: 'weather-agent',
        source_config: expect.objectContaining({ custom_url: url }) as unknown,
      }),
    );
    const table = await berth(['deploy', 'list'], { cwd: work, env });
    expect(table.code).toBe(0);
    const lines = table.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^ID\s+NAME\s+TYPE\s+STATUS\s+URL$/);
    expect(lines.find((line) => line.startsWith(deploymentId))).toMatch(
      new RegExp(`weather-agent\\s+dev\\s+READY\\s+${url.replace(/\./g, '\\.')}`),
    );
  });

  it('prints the build log, of the deployment named after the current directory', async () => {
    const result = await berth(['deploy', 'logs', '--type', 'build'], { cwd: app, env });
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines.length).toBeGreaterThan(2);
    expect(lines.every((line) => / build {2}/.test(line))).toBe(true);
    expect(result.stdout).toContain('Extracting the uploaded source');
    expect(result.stdout).toMatch(/Dependencies unchanged: reusing|Installing dependencies/);

    const deployLog = await berth(['deploy', 'logs', deploymentId, '--type', 'deploy', '--json'], {
      cwd: work,
      env,
    });
    expect(deployLog.code).toBe(0);
    const records = jsonLines(deployLog.stdout);
    expect(records.every((record) => record.type === 'deploy')).toBe(true);
    expect(records.map((record) => record.message)).toContainEqual(
      expect.stringContaining(`Serving at ${url}`),
    );
  });

  it(
    'follows the deployment across a redeploy: says which revision took over, then its lines',
    async () => {
      const follower = spawn(process.execPath, [CLI, 'deploy', 'logs', deploymentId, '--follow'], {
        cwd: work,
        env: { ...cleanEnvironment(), ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let followed = '';
      follower.stdout.on('data', (chunk: Buffer) => (followed += chunk.toString()));
      try {
        await waitUntil(30_000, "the active revision's lines", () =>
          followed.includes('Serving at'),
        );
        const before = (
          await controlPlane.api<Deployment>('GET', `/v2/deployments/${deploymentId}`)
        ).body.active_revision_id;
        await appendFile(join(app, 'src', 'agent.ts'), '\n// changed again, followed\n');
        const redeployed = await berth(['deploy', '--json'], { cwd: app, env });
        expect(redeployed.code).toBe(0);
        const revision = jsonLines(redeployed.stdout).at(-1)?.revision_id as string;
        const takeover = `--- revision ${revision} replaces ${before} ---`;
        await waitUntil(60_000, 'the new revision serving, after its announcement', () =>
          followed.slice(followed.indexOf(takeover)).includes('Serving at'),
        );
        const after = followed.slice(followed.indexOf(takeover));
        expect(followed).toContain(takeover);
        expect(after).toContain('Extracting the uploaded source');
      } finally {
        follower.kill('SIGINT');
      }
      const [code] = (await once(follower, 'exit')) as [number | null];
      expect(code).toBe(130);
    },
    DEPLOY_TIMEOUT_MS,
  );

  it(
    'refuses a langgraph.json that does not parse or names a missing file before uploading, saying what berth dev says',
    async () => {
      const before = (await controlPlane.api<Deployment>('GET', `/v2/deployments/${deploymentId}`))
        .body;
      const database = await createTestDatabase('cli-deploy-dev');
      try {
        for (const [name, config] of [
          ['bad-json', '{ "graphs": { "agent": "./src/agent.ts:graph" '],
          ['missing-file', JSON.stringify({ graphs: { agent: './src/missing.ts:graph' } })],
        ] as const) {
          const broken = join(work, name);
          await cp(app, broken, { recursive: true });
          const configFile = join(broken, 'langgraph.json');
          await writeFile(configFile, config);

          const dev = await berth(['dev', broken, '--port', String(await freePort())], {
            cwd: work,
            env: { DATABASE_URL: database.url, BERTH_API_KEY: 'cli-deploy-dev-key' },
          });
          expect(dev.code).toBe(1);
          const devLine = `${dev.stdout}\n${dev.stderr}`
            .split('\n')
            .find((line) => line.includes(`${configFile}: `));
          const devSaid = devLine?.slice(devLine.indexOf(configFile));
          expect(devSaid).toMatch(
            name === 'bad-json' ? /: invalid JSON: / : /: graph "agent": file .* does not exist$/,
          );

          const deploy = await berth(['deploy', '--name', before.name], { cwd: broken, env });
          expect(deploy.code).toBe(1);
          expect(deploy.stdout).toBe('');
          expect(deploy.stderr).toBe(`berth: ${devSaid ?? ''}\n`);
        }
      } finally {
        await database.drop();
      }
      // Nothing reached the control plane: no revision, no deployment by those names.
      const after = (await controlPlane.api<Deployment>('GET', `/v2/deployments/${deploymentId}`))
        .body;
      expect(after.latest_revision_id).toBe(before.latest_revision_id);
      const { body } = await controlPlane.api<{ resources: Deployment[] }>(
        'GET',
        '/v2/deployments',
      );
      expect(body.resources.map((deployment) => deployment.name)).not.toEqual(
        expect.arrayContaining(['bad-json']),
      );
      expect(body.resources.map((deployment) => deployment.name)).not.toEqual(
        expect.arrayContaining(['missing-file']),
      );
    },
    DEPLOY_TIMEOUT_MS,
  );

  it(
    'reports DEPLOY_FAILED naming the graph that throws at import and why; the live revision still answers',
    async () => {
      const before = (await controlPlane.api<Deployment>('GET', `/v2/deployments/${deploymentId}`))
        .body;
      const throwing = join(work, 'throws-at-import');
      await cp(app, throwing, { recursive: true });
      await addGraph(
        throwing,
        'throws',
        "throw new Error('THROWN_AT_IMPORT: the weather service needs a token');\n",
      );

      const result = await berth(['deploy', '--name', before.name], { cwd: throwing, env });
      expect(result.code).toBe(1);
      expect(result.stdout).toContain('Deploy failed (DEPLOY_FAILED)');
      expect(result.stderr).not.toMatch(/\n\s+at /);
      const lastLine = result.stderr.trim().split('\n').at(-1);
      expect(lastLine).toMatch(
        /^berth: revision \S+: Deploy failed \(DEPLOY_FAILED\): A graph failed to load: graph "throws": .*THROWN_AT_IMPORT: the weather service needs a token/,
      );

      const after = (await controlPlane.api<Deployment>('GET', `/v2/deployments/${deploymentId}`))
        .body;
      expect(after.active_revision_id).toBe(before.active_revision_id);
      const revision = await controlPlane.api<Revision>(
        'GET',
        `/v2/deployments/${deploymentId}/revisions/${after.latest_revision_id ?? ''}`,
      );
      expect(revision.body.status).toBe('DEPLOY_FAILED');
      expect(revision.body.status_message).toMatch(
        /^A graph failed to load: graph "throws": .*THROWN_AT_IMPORT/,
      );
      // The revision before it still serves its graphs.
      const run = await fetch(`${url}/runs/wait`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': controlPlane.apiKey },
        body: JSON.stringify({
          assistant_id: 'agent',
          input: { messages: [{ role: 'user', content: 'Weather in Oslo?' }] },
        }),
      });
      expect(run.status).toBe(200);
    },
    DEPLOY_TIMEOUT_MS,
  );

  it(
    'fails with the build log when installing the dependencies fails (--json)',
    async () => {
      const broken = join(work, 'broken-install');
      await mkdir(broken);
      await writeFile(
        join(broken, 'langgraph.json'),
        JSON.stringify({ graphs: { agent: './graph.ts:graph' } }),
      );
      await writeFile(join(broken, 'graph.ts'), 'export const graph = undefined;\n');
      await writeFile(
        join(broken, 'package.json'),
        JSON.stringify({
          name: 'broken-install',
          private: true,
          scripts: { preinstall: "echo 'cannot install this' >&2 && exit 3" },
        }),
      );
      const result = await berth(
        ['deploy', 'broken-install', '--json', '--name', 'broken-install'],
        {
          cwd: work,
          env,
        },
      );
      expect(result.code).toBe(1);
      const failed = jsonLines(result.stdout).at(-1);
      expect(failed).toMatchObject({ event: 'failed', status: 'BUILD_FAILED' });
      expect((failed?.log_tail as string[]).join('\n')).toContain('cannot install this');
      expectOneLineError(result, /Build failed \(BUILD_FAILED\)/);
    },
    DEPLOY_TIMEOUT_MS,
  );

  it('refuses bad input with one line and exit code 2', async () => {
    const badType = await berth(['deploy', '--deployment-type', 'staging'], { cwd: app, env });
    expect(badType.code).toBe(2);
    expect(badType.stderr.trim()).toBe(
      'berth: --deployment-type must be dev or prod, got "staging"',
    );
    const noConfig = await berth(['deploy', '--config', 'nope.json'], { cwd: app, env });
    expect(noConfig.code).toBe(2);
    expect(noConfig.stderr).toMatch(/^berth: no graph configuration at .*nope\.json\n$/);
    const noId = await berth(['deploy', 'delete'], { cwd: app, env });
    expect(noId.code).toBe(2);
  });

  it('says so in one line when the control plane refuses the key', async () => {
    const result = await berth(['deploy', 'list'], {
      cwd: app,
      env: { ...env, BERTH_API_KEY: 'not-the-key' },
    });
    expectOneLineError(result, /the control plane refused the API key \(401\)/);
    const deploy = await berth(['deploy'], { cwd: app, env: { ...env, BERTH_API_KEY: 'wrong' } });
    expect(deploy.code).toBe(1);
    expect(deploy.stderr).toMatch(/^berth: the control plane refused the API key \(401\)/);
  });

  it('says so in one line when the control plane cannot be reached, or there is no key', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const result = await berth(['deploy', 'list'], {
      cwd: app,
      env: { ...env, BERTH_HOST_URL: closed },
    });
    expectOneLineError(result, new RegExp(`cannot reach the control plane at ${closed} \\(`));
    const deploy = await berth(['deploy'], { cwd: app, env: { ...env, BERTH_HOST_URL: closed } });
    expectOneLineError(deploy, /cannot reach the control plane/);

    const noKey = await berth(['deploy', 'list'], {
      cwd: work,
      env: { BERTH_HOST_URL: controlPlane.url },
    });
    expectOneLineError(noKey, /^berth: no API key: set BERTH_API_KEY/);
  });

  it('deploys a prebuilt image as external_container through a cluster listener', async () => {
    const refused = await berth(
      ['deploy', '--image', 'registry.example.com/agent:1', '--name', 'img'],
      {
        cwd: work,
        env,
      },
    );
    expectOneLineError(refused, /--image needs a cluster listener/);

    const listener = await controlPlane.api<{ id: string }>('POST', '/v2/listeners', {
      name: 'cluster-a',
      compute_type: 'cluster',
    });
    expect(listener.status).toBe(201);
    const result = await berth(
      ['deploy', '--image', 'registry.example.com/agent:1', '--name', 'img', '--no-wait', '--json'],
      { cwd: work, env },
    );
    expect(result.code).toBe(0);
    const submitted = jsonLines(result.stdout).find((line) => line.event === 'submitted');
    expect(typeof submitted?.deployment_id).toBe('string');
    expect(typeof submitted?.revision_id).toBe('string');

    const { body } = await controlPlane.api<
      Deployment & {
        source: string;
        source_revision_config: { image_uri: string };
      }
    >('GET', `/v2/deployments/${String(submitted?.deployment_id)}`);
    expect(body).toMatchObject({
      name: 'img',
      source: 'external_container',
      source_config: { listener_id: listener.body.id },
      source_revision_config: { image_uri: 'registry.example.com/agent:1' },
    });
    const revision = await controlPlane.api<{ status: string; status_message: string }>(
      'GET',
      `/v2/deployments/${body.id}/revisions/${String(submitted?.revision_id)}`,
    );
    expect(revision.body.status).toBe('QUEUED');
    expect(revision.body.status_message).toMatch(/cluster listener/);
    expect((await controlPlane.api('DELETE', `/v2/deployments/${body.id}`)).status).toBe(204);
  });

  it(
    'deletes deployments: with --force, and without asking when stdin is not a terminal',
    async () => {
      // One that is not named stays.
      await createSourceDeployment(controlPlane, 'bystander');
      const forced = await berth(['deploy', 'delete', deploymentId, '--force'], {
        cwd: work,
        env,
      });
      expect(forced.code).toBe(0);
      expect(forced.stdout).toContain(`Deleted deployment weather-agent (${deploymentId})`);
      const unasked = await berth(['deploy', 'delete', 'broken-install'], { cwd: work, env });
      expect(unasked.code).toBe(0);
      expect(unasked.stdout).not.toContain('[y/N]');

      const listed = jsonLines(
        (await berth(['deploy', 'list', '--json'], { cwd: work, env })).stdout,
      );
      const names = listed.map((deployment) => deployment.name);
      expect(names).not.toContain('weather-agent');
      expect(names).not.toContain('broken-install');
      expect(names).toContain('bystander');
      const gone = await berth(['deploy', 'logs', deploymentId], { cwd: work, env });
      expectOneLineError(gone, /no deployment with id/);
    },
    DEPLOY_TIMEOUT_MS,
  );
});
