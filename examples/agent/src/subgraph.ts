import { Annotation, END, START, StateGraph } from '@langchain/langgraph';

/** State shared by the parent graph and its `research` subgraph. */
const ResearchState = Annotation.Root({
  topic: Annotation<string>,
  // Each node returns the whole list, which replaces it. (With an appending reducer, the
  // subgraph's output, which holds the whole list, would be appended to the parent's again.)
  notes: Annotation<string[]>({ reducer: (_, next) => next, default: () => [] }),
  answer: Annotation<string>,
});

/** The subgraph: two steps that each add a note about the topic. */
export const research = new StateGraph(ResearchState)
  .addNode('search', (state) => ({
    notes: [...state.notes, `searched for ${state.topic}`],
  }))
  .addNode('summarize', (state) => ({
    notes: [...state.notes, `summarized ${state.notes.length} note(s) about ${state.topic}`],
  }))
  .addEdge(START, 'search')
  .addEdge('search', 'summarize')
  .addEdge('summarize', END)
  .compile();

research.name = 'research';

/** The parent graph: its `research` node is the compiled subgraph above. */
export const graph = new StateGraph(ResearchState)
  .addNode('plan', (state) => ({
    notes: [...state.notes, `planned research on ${state.topic || 'nothing'}`],
  }))
  .addNode('research', research)
  .addNode('report', (state) => ({ answer: `Report on ${state.topic}: ${state.notes.join('; ')}` }))
  .addEdge(START, 'plan')
  .addEdge('plan', 'research')
  .addEdge('research', 'report')
  .addEdge('report', END)
  .compile();

graph.name = 'subgraph';
