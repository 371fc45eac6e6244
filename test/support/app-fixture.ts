import { execFile } from 'node:child_process';
import { chmod, cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@langchain/langgraph-sdk';
import { EXAMPLE_APP_DIR } from './deployment-flow.js';

const run = promisify(execFile);

/** A graph that answers with the value of the environment variable its input names. */
const ENV_GRAPH = `import { Annotation, END, START, StateGraph } from '@langchain/langgraph';

const EnvState = Annotation.Root({ name: Annotation<string>, value: Annotation<string | null> });

export const graph = new StateGraph(EnvState)
  .addNode('read', (state) => ({ value: process.env[state.name] ?? null }))
  .addEdge(START, 'read')
  .addEdge('read', END)
  .compile();
`;

export interface AppFixture {
  readonly dir: string;
  remove(): Promise<void>;
}

/** A copy of the example application with one more graph, `env`, for tests that read secrets. */
export async function exampleAppWithEnvGraph(): Promise<AppFixture> {
  const dir = await mkdtemp(join(tmpdir(), 'berth-app-'));
  // Cloned from this directory by a deployment's own OS user, it must be readable by others.
  await chmod(dir, 0o755);
  await cp(EXAMPLE_APP_DIR, dir, {
    recursive: true,
    filter: (source) => !source.includes('node_modules'),
  });
  await addGraph(dir, 'env', ENV_GRAPH);
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** Writes `src/<graphId>.ts` into the application and names it in its langgraph.json. */
export async function addGraph(dir: string, graphId: string, source: string): Promise<void> {
  await writeFile(join(dir, 'src', `${graphId}.ts`), source);
  const config = JSON.parse(await readFile(join(dir, 'langgraph.json'), 'utf8')) as {
    graphs: Record<string, string>;
  };
  config.graphs[graphId] = `./src/${graphId}.ts:graph`;
  await writeFile(join(dir, 'langgraph.json'), JSON.stringify(config, null, 2));
}

/** Makes the directory a git repository with one commit on `main`; returns the commit. */
export async function commitAll(dir: string, message: string, init = false): Promise<string> {
  const git = (...args: string[]): Promise<{ stdout: string }> =>
    run('git', args, {
      cwd: dir,
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: 'Berth Test',
        GIT_AUTHOR_EMAIL: 'test@berth.invalid',
        GIT_COMMITTER_NAME: 'Berth Test',
        GIT_COMMITTER_EMAIL: 'test@berth.invalid',
      },
    });
  if (init) await git('init', '--quiet', '--initial-branch=main');
  await git('add', '-A');
  await git('commit', '--quiet', '-m', message);
  return (await git('rev-parse', 'HEAD')).stdout.trim();
}

export async function tag(dir: string, name: string): Promise<void> {
  await run('git', ['tag', name], { cwd: dir });
}

/** Runs the fixture's `env` graph on a deployment: the value its runtime has for the variable. */
export async function readEnvThroughGraph(
  url: string,
  apiKey: string,
  name: string,
): Promise<unknown> {
  const client = new Client({ apiUrl: url, apiKey });
  const values = (await client.runs.wait(null, 'env', { input: { name } })) as { value?: unknown };
  return values.value;
}
