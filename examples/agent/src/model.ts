import type { CallbackManagerForLLMRun } from '@langchain/core/callbacks/manager';
import {
  BaseChatModel,
  type BaseChatModelCallOptions,
  type BaseChatModelParams,
  type BindToolsInput,
} from '@langchain/core/language_models/chat_models';
import type { BaseLanguageModelInput } from '@langchain/core/language_models/base';
import {
  AIMessage,
  AIMessageChunk,
  type BaseMessage,
  ToolMessage,
  HumanMessage,
} from '@langchain/core/messages';
import { ChatGenerationChunk, type ChatResult } from '@langchain/core/outputs';
import type { Runnable } from '@langchain/core/runnables';

export interface FakeToolCallingChatModelParams extends BaseChatModelParams {
  /** Name of the tool the model calls before answering. */
  toolName: string;
  /** Name reported in the answer, e.g. taken from the assistant's context. */
  modelName?: string;
}

/** Text of a message's content, whether a string or content blocks. */
export function messageText(message: BaseMessage): string {
  if (typeof message.content === 'string') return message.content;
  return message.content
    .map((block) => (block.type === 'text' && typeof block.text === 'string' ? block.text : ''))
    .join('');
}

/**
 * The city asked about: the word after the last " in " and the capitalized words following it
 * ("weather in New York please" gives "New York"), or "Paris".
 */
export function cityFromQuestion(question: string): string {
  const matches = [...question.matchAll(/\bin\s+([A-Za-z][\w'-]*(?:\s+[A-Z][\w'-]*)*)/g)];
  const city = matches.at(-1)?.[1];
  return city === undefined ? 'Paris' : city.charAt(0).toUpperCase() + city.slice(1);
}

/** Splits text into tokens that concatenate back to it: words with their trailing spaces. */
export function tokenize(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}

/**
 * A deterministic chat model, with no network, that behaves like a tool-calling LLM:
 *
 * - when the last message is not a tool result, it calls its tool once
 *   (`tool_calls` on the AI message), with arguments derived from the last human message;
 * - when the last message is a tool result, it answers using that result, streamed
 *   token by token (one chunk per word) when the caller streams.
 *
 * The output depends only on the input messages (tool call ids included).
 */
export class FakeToolCallingChatModel extends BaseChatModel {
  readonly toolName: string;
  readonly modelName: string;
  readonly boundTools: string[];

  constructor(fields: FakeToolCallingChatModelParams, boundTools: string[] = []) {
    super(fields);
    this.toolName = fields.toolName;
    this.modelName = fields.modelName ?? 'fake-tool-caller';
    this.boundTools = boundTools;
  }

  static override lc_name(): string {
    return 'FakeToolCallingChatModel';
  }

  override _llmType(): string {
    return 'fake-tool-calling';
  }

  override bindTools(
    tools: BindToolsInput[],
    kwargs?: Partial<BaseChatModelCallOptions>,
  ): Runnable<BaseLanguageModelInput, AIMessageChunk, BaseChatModelCallOptions> {
    const names = tools.map((t) => {
      const record = t as { name?: unknown; function?: { name?: unknown } };
      const name = record.name ?? record.function?.name;
      return typeof name === 'string' ? name : 'unknown';
    });
    const next = new FakeToolCallingChatModel(
      { toolName: this.toolName, modelName: this.modelName },
      names,
    );
    return next.withConfig({ ...kwargs });
  }

  /** The chunks of the next response: one tool-call chunk, or the answer's tokens. */
  private respond(messages: BaseMessage[]): AIMessageChunk[] {
    const last = messages.at(-1);
    if (last !== undefined && ToolMessage.isInstance(last)) {
      const answer = `Here is what I found: ${messageText(last)} (answered by ${this.modelName})`;
      return tokenize(answer).map((token) => new AIMessageChunk({ content: token }));
    }
    if (this.boundTools.length > 0 && !this.boundTools.includes(this.toolName)) {
      throw new Error(`tool ${this.toolName} is not bound to the model`);
    }
    const question = [...messages].reverse().find((m) => HumanMessage.isInstance(m));
    const city = cityFromQuestion(question === undefined ? '' : messageText(question));
    const id = `call_${this.toolName}_${messages.length}`;
    return [
      new AIMessageChunk({
        content: '',
        tool_call_chunks: [
          {
            type: 'tool_call_chunk',
            id,
            name: this.toolName,
            args: JSON.stringify({ city }),
            index: 0,
          },
        ],
      }),
    ];
  }

  override async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const chunks = this.respond(messages);
    let merged = chunks[0] ?? new AIMessageChunk({ content: '' });
    for (const chunk of chunks.slice(1)) merged = merged.concat(chunk);
    const message = new AIMessage({
      content: merged.content,
      tool_calls: merged.tool_calls ?? [],
    });
    return Promise.resolve({ generations: [{ message, text: messageText(message) }] });
  }

  override async *_streamResponseChunks(
    messages: BaseMessage[],
    options: this['ParsedCallOptions'],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    for (const message of this.respond(messages)) {
      options.signal?.throwIfAborted();
      const text = typeof message.content === 'string' ? message.content : '';
      const chunk = new ChatGenerationChunk({ message, text });
      yield chunk;
      await runManager?.handleLLMNewToken(text, undefined, undefined, undefined, undefined, {
        chunk,
      });
    }
  }
}
