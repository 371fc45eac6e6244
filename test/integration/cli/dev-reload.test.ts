import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Client } from '@langchain/langgraph-sdk';
import { freePort } from '../../support/free-port.js';
import { readableLogs } from '../../support/readable-logs.js';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';
import { waitForOk } from '../../support/wait-for-ok.js';
import { eventually } from '../control-plane/api-audit.js';

jest.setTimeout(120_000);

const API_KEY = 'dev-reload-key';

const GRAPH = `import { Annotation, END, START, StateGraph } from '@langchain/langgraph';
import { ANSWER } from './answer.js';

const State = Annotation.Root({ delay_ms: Annotation<number>, answer: Annotation<string> });

export const graph = new StateGraph(State)
  .addNode('respond', async (state) => {
    await new Promise((done) => setTimeout(done, state.delay_ms ?? 0));
    return { answer: ANSWER };
  })
  .addEdge(START, 'respond')
  .addEdge('respond', END)
  .compile();
`;

const answerModule = (answer: string): string => `export const ANSWER = '${answer}';\n`;

describe('berth dev reloads the application when its files change', () => {
  let dir: string;
  let database: TestDatabase;
  let child: ChildProcess;
  let output = '';
  let client: Client;
  let url: string;

  const setAnswer = (code: string) => writeFile(join(dir, 'src', 'answer.ts'), code);
  const said = (text: string, after: number) =>
    eventually(`"${text}" in the output`, () =>
      Promise.resolve(readableLogs(output).slice(after).includes(text) ? true : undefined),
    );
  const answerOf = async (threadId: string | null): Promise<unknown> => {
    const run = threadId
      ? client.runs.wait(threadId, 'version', { input: {} })
      : client.runs.wait(null, 'version', { input: {} });
    const values = (await run) as {
      answer?: unknown;
    };
    return values.answer;
  };

  beforeAll(async () => {
    // Inside the repository: the application resolves @langchain/langgraph from its node_modules.
    dir = await mkdtemp(resolve('test/fixtures/reload-app-'));
    await mkdir(join(dir, 'src'));
    await writeFile(
      join(dir, 'langgraph.json'),
      JSON.stringify({ graphs: { version: './src/version.ts:graph' } }),
    );
    await writeFile(join(dir, 'src', 'version.ts'), GRAPH);
    await setAnswer(answerModule('v1'));
    database = await createTestDatabase('dev-reload');
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    child = spawn(
      process.execPath,
      ['dist/apps/cli/src/main.js', 'dev', dir, '--port', String(port)],
      {
        env: {
          ...process.env,
          DATABASE_URL: database.url,
          BERTH_API_KEY: API_KEY,
          BERTH_DATA_DIR: join(dir, '.berth'),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    for (const stream of [child.stdout, child.stderr]) {
      stream?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    }
    await waitForOk('berth dev', child, url, () => readableLogs(output), 90_000);
    client = new Client({ apiUrl: url, apiKey: API_KEY, callerOptions: { maxRetries: 0 } });
  });

  afterAll(async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
    await database.drop();
    await rm(dir, { recursive: true, force: true });
  });

  it('serves the new code for new runs, keeps threads, and lets a run in progress finish on the old code', async () => {
    const thread = await client.threads.create();
    expect(await answerOf(thread.thread_id)).toBe('v1');

    const slowThread = await client.threads.create();
    const slow = await client.runs.create(slowThread.thread_id, 'version', {
      input: { delay_ms: 4_000 },
    });
    await eventually('the slow run to start', async () =>
      (await client.runs.get(slowThread.thread_id, slow.run_id)).status === 'running'
        ? true
        : undefined,
    );
    const mark = readableLogs(output).length;
    await setAnswer(answerModule('v2'));
    await said('Reloaded after a change to src/answer.ts', mark);

    expect(await answerOf(null)).toBe('v2');
    expect(await answerOf(thread.thread_id)).toBe('v2');
    const finished = (await client.runs.join(slowThread.thread_id, slow.run_id)) as {
      answer?: unknown;
    };
    expect(finished.answer).toBe('v1');
    const history = await client.threads.getHistory(thread.thread_id);
    expect(history.length).toBeGreaterThanOrEqual(2);
  });

  it('keeps the last good code serving when a change does not load, and says why', async () => {
    const mark = readableLogs(output).length;
    await setAnswer(`export const ANSWER = ;\n`);
    await said('is not served (the code before it still is)', mark);
    const info = (await (
      await fetch(`${url}/info`, { headers: { 'x-api-key': API_KEY } })
    ).json()) as {
      reload_error?: string;
      graphs: string[];
    };
    expect(info.reload_error).toEqual(expect.stringContaining('answer.ts'));
    expect(info.graphs).toEqual(['version']);
    expect(await answerOf(null)).toBe('v2');

    const fixed = readableLogs(output).length;
    await setAnswer(answerModule('v3'));
    await said('Reloaded after a change', fixed);
    expect(await answerOf(null)).toBe('v3');
    const healed = (await (
      await fetch(`${url}/info`, { headers: { 'x-api-key': API_KEY } })
    ).json()) as {
      reload_error?: string;
    };
    expect(healed.reload_error).toBeUndefined();
  });
});
