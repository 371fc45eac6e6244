import {
  Annotation,
  END,
  type LangGraphRunnableConfig,
  START,
  StateGraph,
  getWriter,
} from '@langchain/langgraph';

const CountState = Annotation.Root({
  steps: Annotation<number>,
  /** Milliseconds to wait between progress events: makes a slow run to watch, cancel or kill. */
  delay_ms: Annotation<number>,
  total: Annotation<number>,
  result: Annotation<string>,
});

/** A custom stream event written by this graph's nodes. */
export interface ProgressEvent {
  kind: 'progress' | 'done';
  node: string;
  step: number;
  of: number;
}

function stepsOf(state: typeof CountState.State): number {
  return Number.isInteger(state.steps) && state.steps > 0 ? Math.min(state.steps, 20_000) : 3;
}

function delayOf(state: typeof CountState.State): number {
  return Number.isInteger(state.delay_ms) && state.delay_ms > 0 ? Math.min(state.delay_ms, 10_000) : 0;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Writes progress through `config.writer` (the node's config argument). */
async function count(state: typeof CountState.State, config: LangGraphRunnableConfig) {
  const steps = stepsOf(state);
  const delay = delayOf(state);
  let total = 0;
  for (let step = 1; step <= steps; step++) {
    total += step;
    const event: ProgressEvent = { kind: 'progress', node: 'count', step, of: steps };
    config.writer?.(event);
    if (delay > 0) await sleep(delay);
  }
  return { total };
}

/** Writes through `getWriter()`, which reads the config from async local storage. */
function finish(state: typeof CountState.State) {
  const steps = stepsOf(state);
  const event: ProgressEvent = { kind: 'done', node: 'finish', step: steps, of: steps };
  getWriter()?.(event);
  return { result: `The sum of 1..${steps} is ${state.total}.` };
}

export const graph = new StateGraph(CountState)
  .addNode('count', count)
  .addNode('finish', finish)
  .addEdge(START, 'count')
  .addEdge('count', 'finish')
  .addEdge('finish', END)
  .compile();

graph.name = 'custom';
