import {
  Annotation,
  END,
  type LangGraphRunnableConfig,
  START,
  StateGraph,
  interrupt,
} from '@langchain/langgraph';

const ReviewState = Annotation.Root({
  topic: Annotation<string>,
  draft: Annotation<string>,
  approved: Annotation<boolean>,
  feedback: Annotation<string>,
  published: Annotation<string>,
});

/** What the graph asks the human; the resume value answers it. */
export interface ReviewQuestion {
  question: string;
  draft: string;
}

/** The resume value: `true`/`false`, or `{ approved, feedback? }`. */
export type ReviewAnswer = boolean | { approved: boolean; feedback?: string };

/**
 * This module exports a function (not a compiled graph), as langgraph.json allows: the
 * server calls it with the run's config, and it returns the compiled graph. `configurable.author`
 * (optional) signs the draft.
 */
export function makeGraph(config?: LangGraphRunnableConfig) {
  const author: unknown = config?.configurable?.['author'];
  const signature = typeof author === 'string' && author !== '' ? author : 'the example agent';

  const compiled = new StateGraph(ReviewState)
    .addNode('write', (state) => ({
      draft: `A short note about ${state.topic || 'nothing'}, by ${signature}.`,
    }))
    .addNode('review', (state) => {
      const answer = interrupt<ReviewQuestion, ReviewAnswer>({
        question: 'Do you approve this draft?',
        draft: state.draft,
      });
      const approved = typeof answer === 'boolean' ? answer : answer.approved;
      const feedback = typeof answer === 'boolean' ? '' : (answer.feedback ?? '');
      return { approved, feedback };
    })
    .addNode('publish', (state) => ({
      published: state.approved
        ? `Published: ${state.draft}`
        : `Rejected${state.feedback ? `: ${state.feedback}` : ''}`,
    }))
    .addEdge(START, 'write')
    .addEdge('write', 'review')
    .addEdge('review', 'publish')
    .addEdge('publish', END)
    .compile();
  compiled.name = 'interrupt';
  return compiled;
}
