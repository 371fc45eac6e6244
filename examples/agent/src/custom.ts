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
  return Number.isInteger(state.steps) && state.steps > 0 ? Math.min(state.steps, 100) : 3;
}

/** Writes progress through `config.writer` (the node's config argument). */
function count(state: typeof CountState.State, config: LangGraphRunnableConfig) {
  const steps = stepsOf(state);
  let total = 0;
  for (let step = 1; step <= steps; step++) {
    total += step;
    const event: ProgressEvent = { kind: 'progress', node: 'count', step, of: steps };
    config.writer?.(event);
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
