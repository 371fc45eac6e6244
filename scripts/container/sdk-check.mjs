// The container suite's client: the official SDK (@langchain/langgraph-sdk) against a deployment
// served by the containerized platform. Usage: node sdk-check.mjs <stream|slow|check> <deployment
// URL> <state file>, with BERTH_API_KEY set. `stream` streams a run and records its thread and run;
// `slow` starts a run that is still in progress when the platform is stopped; `check` (after a
// restart) finds the recorded thread and runs finished, then streams one more run. Exits 1 naming
// what did not hold.
import { readFile, writeFile } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';
import { Client } from '@langchain/langgraph-sdk';

const [phase, apiUrl, stateFile] = process.argv.slice(2);
const client = new Client({ apiUrl, apiKey: process.env.BERTH_API_KEY });

function expect(condition, what) {
  if (!condition) {
    console.error(`sdk-check ${phase}: ${what}`);
    process.exit(1);
  }
}

async function readState() {
  try {
    return JSON.parse(await readFile(stateFile, 'utf8'));
  } catch {
    return {};
  }
}

async function saveState(update) {
  await writeFile(stateFile, JSON.stringify({ ...(await readState()), ...update }));
}

/** Streams a run of `echo` on a new thread; returns the thread and run ids. */
async function streamRun(text) {
  const thread = await client.threads.create();
  const seen = [];
  let runId;
  let last;
  for await (const chunk of client.runs.stream(thread.thread_id, 'echo', {
    input: { messages: [{ role: 'user', content: text }] },
    streamMode: ['updates', 'values'],
  })) {
    seen.push(chunk.event);
    if (chunk.event === 'metadata') runId = chunk.data.run_id;
    if (chunk.event === 'values') last = chunk.data;
  }
  const answer = last?.messages?.at(-1)?.content;
  expect(runId !== undefined, `no metadata event naming the run (events: ${seen.join(' ')})`);
  expect(
    seen.filter((event) => event === 'updates').length === 2,
    `not one update per step: ${seen.join(' ')}`,
  );
  expect(
    answer === `echo: ${text}`,
    `the last values do not end with the answer: ${JSON.stringify(last)}`,
  );
  console.log(
    `streamed run ${runId} on thread ${thread.thread_id}: ${seen.length} events, "${answer}"`,
  );
  return { thread_id: thread.thread_id, run_id: runId };
}

if (phase === 'stream') {
  await saveState(await streamRun('hello container'));
} else if (phase === 'slow') {
  const thread = await client.threads.create();
  const run = await client.runs.create(thread.thread_id, 'echo', {
    input: { messages: [{ role: 'user', content: 'slow drain' }] },
  });
  let status = run.status;
  const deadline = Date.now() + 30_000;
  while (status !== 'running' && Date.now() < deadline) {
    await delay(200);
    status = (await client.runs.get(thread.thread_id, run.run_id)).status;
  }
  expect(status === 'running', `the slow run is ${status}, not running`);
  console.log(`run ${run.run_id} is running on thread ${thread.thread_id}`);
  await saveState({ slow_thread_id: thread.thread_id, slow_run_id: run.run_id });
} else if (phase === 'check') {
  const state = await readState();
  const thread = await client.threads.get(state.thread_id);
  expect(thread.thread_id === state.thread_id, `thread ${state.thread_id} is gone`);
  const runs = await client.runs.list(state.thread_id);
  const run = runs.find((each) => each.run_id === state.run_id);
  expect(run?.status === 'success', `run ${state.run_id} is ${run?.status ?? 'gone'}`);
  const values = (await client.threads.getState(state.thread_id)).values;
  expect(
    values.messages?.at(-1)?.content === 'echo: hello container',
    'the thread lost its messages',
  );
  console.log(`thread ${state.thread_id} and run ${state.run_id} (success) are kept`);
  if (state.slow_run_id) {
    const finished = await client.runs.join(state.slow_thread_id, state.slow_run_id);
    const slow = await client.runs.get(state.slow_thread_id, state.slow_run_id);
    expect(slow.status === 'success', `the drained run is ${slow.status}`);
    expect(
      finished.messages?.at(-1)?.content === 'echo: slow drain',
      'the drained run has no answer',
    );
    console.log(`run ${state.slow_run_id}, in progress at SIGTERM, finished after the restart`);
  }
  await streamRun('hello again');
} else {
  expect(false, 'usage: sdk-check.mjs <stream|slow|check> <deployment URL> <state file>');
}
