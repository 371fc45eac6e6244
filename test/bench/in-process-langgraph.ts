import { randomUUID } from 'node:crypto';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { MemorySaver } from '@langchain/langgraph';
import { tsImport } from 'tsx/esm/api';
import { percentile } from './bench-support.js';

/** The example's agent graph, as its module exports it. */
interface AgentGraph {
  checkpointer?: unknown;
  invoke(input: unknown, config: unknown): Promise<unknown>;
  stream(input: unknown, config: unknown): Promise<AsyncIterable<unknown>>;
}

export interface InProcessFigures {
  /** Runs per second, `threads` threads of `runsPerThread` runs each at once. */
  readonly runsPerSecond: number;
  /** One `invoke` on a fresh thread, p50. */
  readonly runP50: number;
  /** From `stream` called to its first chunk, p50. */
  readonly firstChunkP50: number;
}

/** Runs on threads of their own before anything is timed, as Berth's runtime is warm too. */
const WARM_UP_RUNS = 20;

/** The example's agent graph, loaded in this process, with a `MemorySaver`, and warmed up. */
async function loadAgentGraph(input: unknown): Promise<AgentGraph> {
  const module = (await tsImport(
    pathToFileURL(resolve('examples/agent/src/agent.ts')).href,
    pathToFileURL(join(process.cwd(), 'package.json')).href,
  )) as { graph: AgentGraph };
  const graph = module.graph;
  graph.checkpointer = new MemorySaver();
  for (let i = 0; i < WARM_UP_RUNS; i += 1) {
    await graph.invoke(input, { configurable: { thread_id: randomUUID() } });
  }
  return graph;
}

/** How long each of `runs` invokes one after another on one thread took, in order. */
export async function timeGrowingThreadInProcess(input: unknown, runs: number): Promise<number[]> {
  const graph = await loadAgentGraph(input);
  const thread = { configurable: { thread_id: randomUUID() } };
  const times: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const started = performance.now();
    await graph.invoke(input, thread);
    times.push(performance.now() - started);
  }
  return times;
}

/**
 * The same graph Berth serves, run in this process by LangGraph itself (`MemorySaver`, no server,
 * nothing durable): the floor any server's figures can be compared with.
 */
export async function measureInProcessLangGraph(options: {
  readonly input: unknown;
  readonly threads: number;
  readonly runsPerThread: number;
  readonly samples: number;
}): Promise<InProcessFigures> {
  const graph = await loadAgentGraph(options.input);
  const config = () => ({ configurable: { thread_id: randomUUID() } });

  const runs: number[] = [];
  for (let i = 0; i < options.samples; i += 1) {
    const started = performance.now();
    await graph.invoke(options.input, config());
    runs.push(performance.now() - started);
  }
  const firstChunks: number[] = [];
  for (let i = 0; i < options.samples; i += 1) {
    const started = performance.now();
    const stream = await graph.stream(options.input, { ...config(), streamMode: 'values' });
    for await (const chunk of stream) {
      if (chunk !== undefined) break;
    }
    firstChunks.push(performance.now() - started);
  }

  const started = performance.now();
  await Promise.all(
    Array.from({ length: options.threads }, async () => {
      const thread = config();
      for (let i = 0; i < options.runsPerThread; i += 1) await graph.invoke(options.input, thread);
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return {
    runsPerSecond: (options.threads * options.runsPerThread) / seconds,
    runP50: percentile(runs, 50),
    firstChunkP50: percentile(firstChunks, 50),
  };
}
