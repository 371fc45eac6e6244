import { setTimeout as sleep } from 'node:timers/promises';
import type { CallbackManagerForLLMRun } from '@langchain/core/callbacks/manager';
import {
  BaseChatModel,
  type BaseChatModelParams,
} from '@langchain/core/language_models/chat_models';
import { AIMessage, AIMessageChunk, type BaseMessage } from '@langchain/core/messages';
import { ChatGenerationChunk, type ChatResult } from '@langchain/core/outputs';
import { callsToolFirst, type ModelTiming } from './model-timing.js';

export interface StreamingChatModelParams extends BaseChatModelParams {
  readonly timing: ModelTiming;
  /** The tool it calls on a tool turn. */
  readonly toolName: string;
}

/**
 * A chat model with no network that takes a real model's time: on a tool turn it answers, after
 * one interval, with a call of its tool; otherwise it streams `timing.tokens` tokens, one every
 * `timing.intervalMs`.
 */
export class StreamingChatModel extends BaseChatModel {
  readonly timing: ModelTiming;
  readonly toolName: string;

  constructor(fields: StreamingChatModelParams) {
    super(fields);
    this.timing = fields.timing;
    this.toolName = fields.toolName;
  }

  static override lc_name(): string {
    return 'StreamingChatModel';
  }

  override _llmType(): string {
    return 'bench-streaming';
  }

  override async *_streamResponseChunks(
    messages: BaseMessage[],
    options: this['ParsedCallOptions'],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    const { signal } = options;
    if (callsToolFirst(messages)) {
      await sleep(this.timing.intervalMs, undefined, { signal });
      const call = {
        type: 'tool_call_chunk' as const,
        id: `call_${String(messages.length)}`,
        name: this.toolName,
        args: JSON.stringify({ topic: 'the weather' }),
        index: 0,
      };
      yield new ChatGenerationChunk({
        message: new AIMessageChunk({ content: '', tool_call_chunks: [call] }),
        text: '',
      });
      return;
    }
    for (let i = 0; i < this.timing.tokens; i += 1) {
      await sleep(this.timing.intervalMs, undefined, { signal });
      const text = `token${String(i)} `;
      const chunk = new ChatGenerationChunk({
        message: new AIMessageChunk({ content: text }),
        text,
      });
      yield chunk;
      await runManager?.handleLLMNewToken(text, undefined, undefined, undefined, undefined, {
        chunk,
      });
    }
  }

  override async _generate(
    messages: BaseMessage[],
    options: this['ParsedCallOptions'],
    runManager?: CallbackManagerForLLMRun,
  ): Promise<ChatResult> {
    let merged: AIMessageChunk | undefined;
    for await (const chunk of this._streamResponseChunks(messages, options, runManager)) {
      const message = chunk.message as AIMessageChunk;
      merged = merged === undefined ? message : merged.concat(message);
    }
    const message = new AIMessage({
      content: merged?.content ?? '',
      tool_calls: merged?.tool_calls ?? [],
    });
    const text = typeof message.content === 'string' ? message.content : '';
    return { generations: [{ message, text }] };
  }
}
