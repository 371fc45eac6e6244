import { toJsonValue } from '../common/json-payload.js';
import { RunTranslator } from '../protocol-events/run-translator.js';
import type { StreamedEvent } from './graph-stream.js';

/** The part of LangGraph's `StreamTransformer` a run uses (checked structurally). */
interface StreamTransformerLike {
  init(): unknown;
  onRegister?(emitter: { push: (namespace: string[], event: unknown) => void }): void;
  process(event: unknown): boolean;
  finalize?(): void | PromiseLike<void>;
  fail?(error: unknown): void;
}

/** A `StreamChannel.remote(name)` of the application's LangGraph (checked structurally). */
interface RemoteChannelLike {
  readonly channelName: string;
  _wire(forward: (item: unknown) => void): void;
  _close(): void;
  _fail(error: unknown): void;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null;

function isRemoteChannel(value: unknown): value is RemoteChannelLike {
  return (
    isRecord(value) &&
    typeof value.channelName === 'string' &&
    typeof value._wire === 'function' &&
    typeof value._close === 'function'
  );
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return isRecord(value) && typeof value.then === 'function';
}

/** The transformers a graph was compiled with (`compile({ transformers })`), made for one run. */
function transformersOf(graph: unknown): StreamTransformerLike[] {
  const factories = isRecord(graph) ? graph.streamTransformers : undefined;
  if (!Array.isArray(factories)) return [];
  return factories
    .filter((factory): factory is () => StreamTransformerLike => typeof factory === 'function')
    .map((factory) => factory());
}

/** What a transformer makes public: a `custom` chunk `{name, payload}`, as LangGraph's mux sends it. */
function customChunk(name: string, payload: unknown): StreamedEvent {
  return { event: 'custom', data: toJsonValue({ name, payload }) };
}

/**
 * A run of a graph compiled with stream transformers (LangGraph's `streamEvents` v3 extensions):
 * each chunk the graph streams is also given to the transformers as the protocol event it makes,
 * and what they publish (a remote `StreamChannel`'s items as they come, a promised final value at
 * the run's end) is recorded as `custom` chunks `{name, payload}`: what `thread.extensions.<name>`
 * of the SDK reads. Graphs without transformers, and runs that stream no `custom`, pass as they are.
 */
export async function* withStreamTransformers(
  graph: unknown,
  streamsCustom: boolean,
  chunks: AsyncIterable<StreamedEvent>,
): AsyncGenerator<StreamedEvent> {
  const transformers = streamsCustom ? transformersOf(graph) : [];
  if (transformers.length === 0) {
    yield* chunks;
    return;
  }
  const published: StreamedEvent[] = [];
  const channels: RemoteChannelLike[] = [];
  const finals: { name: string; value: PromiseLike<unknown> }[] = [];
  for (const transformer of transformers) {
    transformer.onRegister?.({
      push: (_namespace, event) => {
        // Synthesized events reach clients through the channels above; a custom one is kept.
        if (isRecord(event) && event.method === 'custom' && isRecord(event.params)) {
          const data = event.params.data;
          if (isRecord(data) && typeof data.name === 'string') {
            published.push(customChunk(data.name, data.payload));
          }
        }
      },
    });
    const projection = transformer.init();
    if (!isRecord(projection)) continue;
    for (const [key, value] of Object.entries(projection)) {
      if (isRemoteChannel(value)) {
        channels.push(value);
        value._wire((item) => published.push(customChunk(value.channelName, item)));
      } else if (isPromiseLike(value)) {
        finals.push({ name: key, value });
      }
    }
  }
  const translator = new RunTranslator('');
  try {
    for await (const chunk of chunks) {
      yield chunk;
      for (const body of translator.translateChunk(chunk.event, chunk.data)) {
        const event = {
          type: 'event',
          method: body.method,
          params: {
            namespace: [...body.namespace],
            timestamp: Date.now(),
            ...(body.node !== undefined ? { node: body.node } : {}),
            data: body.data,
          },
        };
        for (const transformer of transformers) transformer.process(event);
      }
      yield* published.splice(0);
    }
    for (const transformer of transformers) await transformer.finalize?.();
    for (const channel of channels) channel._close();
    yield* published.splice(0);
    for (const final of finals) yield customChunk(final.name, await final.value);
  } catch (error) {
    for (const transformer of transformers) transformer.fail?.(error);
    for (const channel of channels) channel._fail(error);
    throw error;
  }
}
