import { tool } from '@langchain/core/tools';
import {
  END,
  type LangGraphRunnableConfig,
  MessagesAnnotation,
  START,
  StateGraph,
} from '@langchain/langgraph';
import { ToolNode, toolsCondition } from '@langchain/langgraph/prebuilt';
import { z } from 'zod';
import { timingOf } from './model-timing.js';
import { StreamingChatModel } from './streaming-model.js';

const lookup = tool(({ topic }: { topic: string }): string => `Nothing new about ${topic}.`, {
  name: 'lookup',
  description: 'Look a topic up.',
  schema: z.object({ topic: z.string() }),
});

async function callModel(
  state: typeof MessagesAnnotation.State,
  config: LangGraphRunnableConfig,
): Promise<typeof MessagesAnnotation.Update> {
  const model = new StreamingChatModel({
    timing: timingOf(config.configurable),
    toolName: lookup.name,
  });
  return { messages: [await model.invoke(state.messages, config)] };
}

/** An agent whose model streams for seconds: the `agents` phase of the runtime benchmark. */
export const graph = new StateGraph(MessagesAnnotation)
  .addNode('model', callModel)
  .addNode('tools', new ToolNode([lookup]))
  .addEdge(START, 'model')
  .addConditionalEdges('model', toolsCondition, ['tools', END])
  .addEdge('tools', 'model')
  .compile();

graph.name = 'agents';
