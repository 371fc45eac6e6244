import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { packDirectory } from '#libs/source-archive';
import { addGraph, exampleAppWithEnvGraph, type AppFixture } from '../../support/app-fixture.js';
import {
  OTHER_TENANT_KEY,
  startControlPlane,
  type ControlPlaneProcess,
} from '../../support/control-plane-process.js';
import {
  createSourceDeployment,
  patchSource,
  waitForRevision,
  type Deployment,
} from '../../support/deployment-flow.js';

jest.setTimeout(300_000);

const CLI = resolve('dist/apps/cli/src/main.js');
const run = promisify(execFile);

type Changes = {
  revision_id: string;
  against: string | null;
  source_kept: boolean;
  source_reason: string | null;
  capped: string | null;
  files: { path: string; change: string; diff?: string; reason?: string }[];
  dependencies: { name: string; from: string | null; to: string | null }[];
  graphs: { graph_id: string; change: string; from: string | null; to: string | null }[];
  secrets: { name: string; change: string }[];
  config: { field: string; from: unknown; to: unknown }[];
  commit_range: unknown;
};

const ECHO_GRAPH = `import { Annotation, END, START, StateGraph } from '@langchain/langgraph';

const EchoState = Annotation.Root({ text: Annotation<string> });

export const graph = new StateGraph(EchoState)
  .addNode('echo', (state: typeof EchoState.State) => ({ text: state.text }))
  .addEdge(START, 'echo')
  .addEdge('echo', END)
  .compile();
`;

const HELPER_BEFORE = 'export const greeting = "hello";\nexport const answer = 41;\n';
const HELPER_AFTER = 'export const greeting = "hello";\nexport const answer = 42;\n';

describe('what changed between two revisions, over HTTP', () => {
  let cp: ControlPlaneProcess;
  let app: AppFixture;
  let deployment: Deployment;
  let first: string;
  let second: string;
  const firstSecret = `first-secret-${randomUUID()}`;
  const secondSecret = `rotated-secret-${randomUUID()}`;

  const changesOf = (path: string, key?: string) =>
    cp.api<Changes & { detail?: string }>('GET', path, undefined, key);
  const base = () => `/v2/deployments/${deployment.id}/revisions`;

  beforeAll(async () => {
    cp = await startControlPlane();
    app = await exampleAppWithEnvGraph();
    await writeFile(join(app.dir, 'NOTES.md'), '# Notes\nremoved in the second revision\n');
    await writeFile(join(app.dir, 'src', 'helper.ts'), HELPER_BEFORE);

    deployment = await createSourceDeployment(cp, 'changes', [
      { name: 'GREETING', value: firstSecret },
    ]);
    const firstPatch = await patchSource(cp, deployment.id, await pack(app.dir));
    first = firstPatch.latest_revision_id ?? '';
    expect((await waitForRevision(cp, deployment.id, first)).status).toBe('DEPLOYED');

    await rm(join(app.dir, 'NOTES.md'));
    await mkdir(join(app.dir, 'docs'));
    await writeFile(join(app.dir, 'docs', 'added.md'), 'A file the second revision adds.\n');
    await writeFile(join(app.dir, 'src', 'helper.ts'), HELPER_AFTER);
    await addGraph(app.dir, 'echo', ECHO_GRAPH);
    const manifest = JSON.parse(await readFile(join(app.dir, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    manifest.dependencies.zod = `^${manifest.dependencies.zod}`;
    await writeFile(join(app.dir, 'package.json'), JSON.stringify(manifest, null, 2));
    const secondPatch = await patchSource(cp, deployment.id, await pack(app.dir), {
      secrets: [{ name: 'GREETING', value: secondSecret }],
    });
    second = secondPatch.latest_revision_id ?? '';
    expect((await waitForRevision(cp, deployment.id, second)).status).toBe('DEPLOYED');
  });

  afterAll(async () => {
    await cp.dispose();
    await app.remove();
  });

  it('answers against the revision it replaced: files, diffs, dependencies, graphs, secrets, settings', async () => {
    const response = await changesOf(`${base()}/${second}/changes`);
    expect(response.status).toBe(200);
    const changes = response.body;
    expect(changes).toMatchObject({
      revision_id: second,
      against: first,
      source_kept: true,
      source_reason: null,
      capped: null,
      commit_range: null,
    });
    const byPath = new Map(changes.files.map((file) => [file.path, file]));
    expect(byPath.get('NOTES.md')).toMatchObject({ change: 'removed' });
    expect(byPath.get('docs/added.md')).toEqual({
      path: 'docs/added.md',
      change: 'added',
      diff:
        '--- a/docs/added.md\n+++ b/docs/added.md\n@@ -0,0 +1,1 @@\n' +
        '+A file the second revision adds.\n',
    });
    expect(byPath.get('src/helper.ts')).toEqual({
      path: 'src/helper.ts',
      change: 'modified',
      diff:
        '--- a/src/helper.ts\n+++ b/src/helper.ts\n@@ -1,2 +1,2 @@\n' +
        ' export const greeting = "hello";\n-export const answer = 41;\n+export const answer = 42;\n',
    });
    expect(byPath.get('src/echo.ts')).toMatchObject({ change: 'added' });
    expect(byPath.get('langgraph.json')).toMatchObject({ change: 'modified' });
    expect(byPath.get('src/agent.ts')).toBeUndefined();

    expect(changes.dependencies).toEqual([
      {
        name: 'zod',
        kind: 'dependencies',
        from: expect.stringMatching(/^\d/),
        to: expect.stringMatching(/^\^\d/),
        resolved_from: null,
        resolved_to: null,
      },
    ]);
    expect(changes.graphs).toEqual([
      { graph_id: 'echo', change: 'added', from: null, to: './src/echo.ts:graph' },
    ]);
    expect(changes.secrets).toEqual([{ name: 'GREETING', change: 'changed' }]);
    expect(changes.config.map((entry) => entry.field)).toEqual([
      'source_revision_config.source_tarball_path',
      'source_tarball_sha256',
    ]);

    const raw = await fetch(`${cp.url}${base()}/${second}/changes`, {
      headers: { 'x-api-key': cp.apiKey },
    });
    const text = await raw.text();
    expect(text).not.toContain(firstSecret);
    expect(text).not.toContain(secondSecret);
  });

  it('compares with any other revision of the deployment given as ?against', async () => {
    const backwards = await changesOf(`${base()}/${first}/changes?against=${second}`);
    expect(backwards.status).toBe(200);
    expect(backwards.body.against).toBe(second);
    const byPath = new Map(backwards.body.files.map((file) => [file.path, file.change]));
    expect(byPath.get('docs/added.md')).toBe('removed');
    expect(byPath.get('NOTES.md')).toBe('added');
    expect(backwards.body.graphs).toEqual([
      { graph_id: 'echo', change: 'removed', from: './src/echo.ts:graph', to: null },
    ]);

    const itself = await changesOf(`${base()}/${second}/changes?against=${second}`);
    expect(itself.body).toMatchObject({ files: [], dependencies: [], graphs: [], secrets: [] });
  });

  it('compares the first revision with nothing: every file added', async () => {
    const response = await changesOf(`${base()}/${first}/changes`);
    expect(response.status).toBe(200);
    expect(response.body.against).toBeNull();
    expect(response.body.files.every((file) => file.change === 'added')).toBe(true);
    expect(response.body.files.map((file) => file.path)).toContain('src/helper.ts');
    expect(response.body.secrets).toEqual([{ name: 'GREETING', change: 'added' }]);
  });

  it("answers 404 for unknown ids, another deployment's revision and another tenant", async () => {
    const unknown = randomUUID();
    const missingRevision = await changesOf(`${base()}/${unknown}/changes`);
    expect(missingRevision.status).toBe(404);
    expect(missingRevision.body.detail).toContain(unknown);
    const missingDeployment = await changesOf(
      `/v2/deployments/${unknown}/revisions/${second}/changes`,
    );
    expect(missingDeployment.status).toBe(404);
    const missingAgainst = await changesOf(`${base()}/${second}/changes?against=${unknown}`);
    expect(missingAgainst.status).toBe(404);
    expect(missingAgainst.body.detail).toMatch(/is not a revision of deployment/);

    const other = await createSourceDeployment(cp, 'changes-other');
    const otherRevision = (await patchSource(cp, other.id, await pack(app.dir))).latest_revision_id;
    const elsewhere = await changesOf(`${base()}/${second}/changes?against=${otherRevision ?? ''}`);
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.body.detail).toContain(
      `Revision ${otherRevision ?? ''} (against) is not a revision of deployment ${deployment.id}`,
    );
    await waitForRevision(cp, other.id, otherRevision ?? '');

    const badAgainst = await changesOf(`${base()}/${second}/changes?against=not-a-uuid`);
    expect(badAgainst.status).toBe(422);
    const otherTenant = await changesOf(`${base()}/${second}/changes`, OTHER_TENANT_KEY);
    expect(otherTenant.status).toBe(404);
  });

  it('prints the changes with berth deploy revisions --changes', async () => {
    const env: Record<string, string> = {};
    for (const [name, value] of Object.entries(process.env)) {
      if (value !== undefined && !name.startsWith('BERTH_') && name !== 'DATABASE_URL') {
        env[name] = value;
      }
    }
    const { stdout } = await run(
      process.execPath,
      [CLI, 'deploy', 'revisions', deployment.id, '--changes', second],
      { cwd: app.dir, env: { ...env, BERTH_HOST_URL: cp.url, BERTH_API_KEY: cp.apiKey } },
    );
    expect(stdout).toContain(`Revision ${second} against ${first}`);
    expect(stdout).toMatch(/^ {2}- NOTES\.md$/m);
    expect(stdout).toMatch(/^ {2}\+ docs\/added\.md$/m);
    expect(stdout).toMatch(/^ {2}~ src\/helper\.ts$/m);
    expect(stdout).toMatch(/^ {2}zod: \S+ -> \^\S+$/m);
    expect(stdout).toContain('  + echo: (none) -> ./src/echo.ts:graph');
    expect(stdout).toContain('  GREETING: changed');
    expect(stdout).toContain('-export const answer = 41;\n+export const answer = 42;');
    expect(stdout).not.toContain(secondSecret);
  });

  it('says a source is no longer kept, without failing', async () => {
    const firstRevision = await cp.api<{ source_revision_config: { source_tarball_path: string } }>(
      'GET',
      `${base()}/${first}`,
    );
    const tarball = join(cp.dataDir, firstRevision.body.source_revision_config.source_tarball_path);
    await rm(tarball);
    const response = await changesOf(`${base()}/${second}/changes`);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      source_kept: false,
      source_reason: `revision ${first}: its uploaded tarball is no longer kept`,
      files: [],
      secrets: [{ name: 'GREETING', change: 'changed' }],
    });
  });
});

async function pack(dir: string): Promise<Buffer> {
  return (await packDirectory(dir)).archive;
}
