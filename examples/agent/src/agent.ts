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
import { FakeToolCallingChatModel } from './model.js';

/** Values the assistant may set in its context (or the run's configurable). */
export interface AgentContext {
  /** Name the model signs its answers with. */
  model_name?: string;
}

const FORECASTS: Record<string, { celsius: number; sky: string }> = {
  paris: { celsius: 18, sky: 'cloudy' },
  london: { celsius: 14, sky: 'rainy' },
  tokyo: { celsius: 24, sky: 'sunny' },
};

export const getWeather = tool(
  ({ city }: { city: string }): string => {
    const forecast = FORECASTS[city.toLowerCase()] ?? { celsius: 21, sky: 'sunny' };
    const fahrenheit = process.env['WEATHER_UNITS'] === 'fahrenheit';
    const temperature = fahrenheit
      ? `${Math.round((forecast.celsius * 9) / 5 + 32)}°F`
      : `${forecast.celsius}°C`;
    return `It is ${temperature} and ${forecast.sky} in ${city}.`;
  },
  {
    name: 'get_weather',
    description: 'Get the current weather in a city.',
    schema: z.object({ city: z.string().describe('The city name') }),
  },
);

const tools = [getWeather];

function modelName(config: LangGraphRunnableConfig<AgentContext>): string | undefined {
  const fromContext = config.context?.model_name;
  if (typeof fromContext === 'string') return fromContext;
  const fromConfigurable: unknown = config.configurable?.['model_name'];
  return typeof fromConfigurable === 'string' ? fromConfigurable : undefined;
}

async function callModel(
  state: typeof MessagesAnnotation.State,
  config: LangGraphRunnableConfig<AgentContext>,
): Promise<typeof MessagesAnnotation.Update> {
  const name = modelName(config);
  const model = new FakeToolCallingChatModel({
    toolName: getWeather.name,
    ...(name === undefined ? {} : { modelName: name }),
  }).bindTools(tools);
  const response = await model.invoke(state.messages, config);
  return { messages: [response] };
}

export const graph = new StateGraph(MessagesAnnotation)
  .addNode('agent', callModel)
  .addNode('tools', new ToolNode(tools))
  .addEdge(START, 'agent')
  .addConditionalEdges('agent', toolsCondition, ['tools', END])
  .addEdge('tools', 'agent')
  .compile();

graph.name = 'agent';
