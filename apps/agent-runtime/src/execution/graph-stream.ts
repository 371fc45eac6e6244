/**
 * Executes one run of a compiled LangGraph graph and turns its output into the stream events
 * of the LangGraph agent runtime API, with the semantics of the reference server
 * (`@langchain/langgraph-api`): the graph runs through `streamEvents` (schema v2) with the
 * library stream modes derived from the requested ones, root graph chunks become
 * `<mode>` / `<mode>|<namespace>` events and every other callback event feeds the `events`
 * and legacy `messages` modes. A run that needs no callback event (neither of those modes, no
 * subgraphs) runs through the graph's own `stream` instead, with the same output at a fraction
 * of the cost.
 *
 * The run's leading `metadata` event and the `error` event are the caller's business.
 * Payloads are yielded as plain JSON values (LangChain messages already converted to their
 * dict form), so `JSON.stringify(data)` is the wire text.
 */
import { randomUUID } from 'node:crypto';
import { isCheckpointEnvelope } from './debug-payloads.js';
import { modePayloadOf, NOT_REQUESTED } from './mode-payloads.js';
import type { StreamMode } from './stream-modes.js';
import type { FinalStateTracker } from './final-state.js';
import { LegacyMessagesTracker } from './legacy-messages.js';
import type { JsonValue } from '#libs/event-store';
import { toJsonValue } from '../common/json-payload.js';
import { isRecord, withoutKey } from '../common/records.js';

export { STREAM_MODES, type StreamMode } from './stream-modes.js';

export interface StreamedEvent {
  readonly event: string;
  /** Plain JSON: `JSON.stringify(data)` is the wire text. */
  readonly data: JsonValue;
}

export interface GraphCommand {
  resume?: unknown;
  update?: unknown;
  goto?: unknown;
}

export interface GraphRunRequest {
  /** A compiled graph (Pregel) from the application's own copy of `@langchain/langgraph`. */
  readonly graph: unknown;
  /** The run input; ignored (may be null) when `command` is set. */
  readonly input: unknown;
  readonly command?: GraphCommand | null;
  /** Builds a Command with the application's own `Command` class. */
  readonly createCommand: (command: GraphCommand) => unknown;
  /** RunnableConfig: `configurable`, `metadata`, `tags`, `recursion_limit`. */
  readonly config: Record<string, unknown>;
  /** The assistant's context, passed as LangGraph's `context` option. */
  readonly context?: Record<string, unknown>;
  readonly streamModes: readonly StreamMode[];
  readonly subgraphs: boolean;
  readonly interruptBefore?: readonly string[] | '*';
  readonly interruptAfter?: readonly string[] | '*';
  /** When LangGraph writes checkpoints: after each step, alongside the next one, or at exit. */
  readonly durability?: Durability;
  readonly signal: AbortSignal;
  /**
   * Told the run's root checkpoints and task results, so that the state it ends with need not
   * be read back (not with subgraphs, whose runs LangGraph streams differently once the
   * `checkpoints` mode is on, nor with `exit` durability).
   */
  readonly finalState?: FinalStateTracker;
}

export type Durability = 'sync' | 'async' | 'exit';

/** The options of `Pregel.stream` that a run uses. */
interface GraphStreamOptions {
  readonly streamMode: string[];
  readonly subgraphs: boolean;
  readonly runId: string;
  readonly signal: AbortSignal;
  readonly configurable?: unknown;
  readonly metadata?: unknown;
  readonly tags?: unknown;
  readonly recursionLimit?: unknown;
  readonly context?: Record<string, unknown>;
  readonly interruptBefore?: readonly string[] | '*';
  readonly interruptAfter?: readonly string[] | '*';
  readonly durability?: Durability;
}

/** `Pregel.streamEvents` takes the same, with the schema version of its events. */
interface GraphStreamEventsOptions extends GraphStreamOptions {
  readonly version: 'v2';
}

/** The part of a compiled graph that running it needs; checked structurally. */
interface ChunkStreamingGraph {
  stream(
    input: unknown,
    options: GraphStreamOptions & { readonly callbacks: readonly object[] },
  ): AsyncIterable<unknown> | Promise<AsyncIterable<unknown>>;
}

interface EventStreamingGraph {
  streamEvents(
    input: unknown,
    options: GraphStreamEventsOptions,
  ): AsyncIterable<unknown> | Promise<AsyncIterable<unknown>>;
}

/** A `streamEvents` v2 event, reduced to the fields used here. */
interface CallbackEvent {
  readonly event: string;
  readonly run_id: unknown;
  readonly tags: readonly unknown[];
  readonly metadata: unknown;
  readonly data: Record<string, unknown>;
  readonly raw: unknown;
}

/** A chunk of the graph's own stream: `[namespace, mode, payload]`. */
interface GraphChunk {
  readonly namespace: readonly string[];
  readonly mode: string;
  readonly payload: unknown;
}

function isEventStreamingGraph(graph: unknown): graph is EventStreamingGraph {
  return isRecord(graph) && typeof graph['streamEvents'] === 'function';
}

function isChunkStreamingGraph(graph: unknown): graph is ChunkStreamingGraph {
  return isRecord(graph) && typeof graph['stream'] === 'function';
}

/**
 * Whether the run's output needs LangChain's callback events: the `events` and legacy
 * `messages` modes are made of them, and subgraph chunks are read from every graph's events.
 */
export function needsCallbackEvents(modes: readonly StreamMode[], subgraphs: boolean): boolean {
  return subgraphs || modes.includes('events') || modes.includes('messages');
}

/**
 * The library stream modes for the requested ones: `messages-tuple` is LangGraph's
 * `messages`, `events` is not a graph stream mode, and the legacy `messages` mode also needs
 * `values` (its completed messages are read from the state).
 */
export function toLibraryStreamModes(requested: readonly StreamMode[]): string[] {
  const modes = new Set<string>(
    requested.filter((mode) => mode !== 'events' && mode !== 'messages-tuple'),
  );
  if (requested.includes('messages-tuple')) modes.add('messages');
  if (requested.includes('messages')) modes.add('values');
  return [...modes];
}

function resolveRunId(config: Record<string, unknown>): string {
  const configurable = config['configurable'];
  const runId = isRecord(configurable) ? configurable['run_id'] : undefined;
  return typeof runId === 'string' && runId !== '' ? runId : randomUUID();
}

function graphInputOf(request: GraphRunRequest): unknown {
  if (request.command != null) return request.createCommand(request.command);
  return request.input ?? null;
}

/** Only options with a value are passed: Pregel spreads them over the graph's defaults. */
function omitUndefined<T extends object>(options: T): T {
  return Object.fromEntries(
    Object.entries(options).filter(([, value]) => value !== undefined),
  ) as T;
}

/**
 * A null `checkpoint_id` (as in the run record) means "the latest checkpoint", which the
 * reference expresses by leaving the key out; passing the null along would also copy it into
 * every event's metadata.
 */
function configurableOf(config: Record<string, unknown>): unknown {
  const configurable = config['configurable'];
  if (!isRecord(configurable) || configurable['checkpoint_id'] !== null) return configurable;
  return withoutKey(configurable, 'checkpoint_id');
}

/** The modes a run adds for itself when its final state comes from its own stream. */
const FINAL_STATE_MODES = ['checkpoints', 'tasks'];

function finalStateTrackerOf(request: GraphRunRequest): FinalStateTracker | undefined {
  const tracks = !request.subgraphs && request.durability !== 'exit';
  return tracks ? request.finalState : undefined;
}

function libraryStreamModesOf(request: GraphRunRequest): string[] {
  const modes = toLibraryStreamModes(request.streamModes);
  if (finalStateTrackerOf(request) === undefined) return modes;
  return [...new Set([...modes, ...FINAL_STATE_MODES])];
}

/**
 * Hands a root checkpoint or task result to the run's final-state tracker. True when the chunk
 * came only for it (the run did not ask for its mode), so nothing else is to see it.
 */
function observeFinalState(
  chunk: GraphChunk,
  tracker: FinalStateTracker | undefined,
  requested: ReadonlySet<StreamMode>,
): boolean {
  if (tracker === undefined || chunk.namespace.length > 0) return false;
  if (chunk.mode === 'checkpoints' && !isCheckpointEnvelope(chunk.payload)) {
    tracker.onCheckpoint(chunk.payload);
  } else if (chunk.mode === 'tasks') {
    tracker.onTask(chunk.payload);
  } else {
    return false;
  }
  return !requested.has(chunk.mode);
}

/** The options a run passes to `stream` and, with `version`, to `streamEvents`. */
function graphStreamOptionsOf(request: GraphRunRequest, runId: string): GraphStreamOptions {
  const { config } = request;
  return omitUndefined<GraphStreamOptions>({
    interruptAfter: request.interruptAfter,
    interruptBefore: request.interruptBefore,
    durability: request.durability,
    tags: config['tags'],
    context: request.context,
    configurable: configurableOf(config),
    recursionLimit: config['recursion_limit'] ?? config['recursionLimit'],
    subgraphs: request.subgraphs,
    metadata: config['metadata'],
    runId,
    streamMode: libraryStreamModesOf(request),
    signal: request.signal,
  });
}

function toCallbackEvent(raw: unknown): CallbackEvent | undefined {
  if (!isRecord(raw) || typeof raw['event'] !== 'string') return undefined;
  const tags = raw['tags'];
  const data = raw['data'];
  return {
    event: raw['event'],
    run_id: raw['run_id'],
    tags: Array.isArray(tags) ? (tags as unknown[]) : [],
    metadata: raw['metadata'],
    data: isRecord(data) ? data : {},
    raw,
  };
}

/**
 * Root stream chunks are `[mode, payload]`, or `[namespace, mode, payload]` when subgraphs
 * are streamed (then every graph's `on_chain_stream` is read as such a chunk).
 */
function toGraphChunk(chunk: unknown, subgraphs: boolean): GraphChunk | undefined {
  if (!Array.isArray(chunk)) return undefined;
  const tuple = chunk as unknown[];
  const [namespace, mode, payload] = subgraphs ? tuple : [null, ...tuple];
  if (typeof mode !== 'string') return undefined;
  return {
    namespace: Array.isArray(namespace) ? namespace.map(String) : [],
    mode,
    payload,
  };
}

function eventNameOf(mode: string, namespace: readonly string[], subgraphs: boolean): string {
  return subgraphs && namespace.length > 0 ? `${mode}|${namespace.join('|')}` : mode;
}

/** An event to send, its payload as the graph gave it: made plain JSON once, on the way out. */
interface GraphEvent {
  readonly event: string;
  readonly payload: unknown;
}

/** The event (if any) that the reference sends for one chunk of the graph's own stream. */
function toModeEvent(
  chunk: GraphChunk,
  requested: ReadonlySet<StreamMode>,
  subgraphs: boolean,
): GraphEvent | undefined {
  const payload = modePayloadOf(chunk.mode, chunk.payload, requested);
  if (payload === NOT_REQUESTED) return undefined;
  return { event: eventNameOf(chunk.mode, chunk.namespace, subgraphs), payload };
}

/**
 * The payload the legacy `messages` mode reads completed messages from: the second element
 * of the raw chunk. With subgraphs that element is the mode name, so (as in the reference)
 * no `messages/complete` events are produced for subgraph-streaming runs.
 */
function legacyStateChunkOf(rawChunk: unknown): unknown {
  return Array.isArray(rawChunk) ? (rawChunk as unknown[])[1] : undefined;
}

async function openEventStream(
  request: GraphRunRequest,
  runId: string,
): Promise<AsyncIterable<unknown>> {
  const { graph } = request;
  if (!isEventStreamingGraph(graph)) {
    throw new TypeError('The graph to run does not implement streamEvents()');
  }
  return graph.streamEvents(graphInputOf(request), {
    version: 'v2',
    ...graphStreamOptionsOf(request, runId),
  });
}

export async function* streamGraphRun(request: GraphRunRequest): AsyncGenerator<StreamedEvent> {
  for await (const { event, payload } of graphEventsOf(request)) {
    yield { event, data: toJsonValue(payload) };
  }
}

function graphEventsOf(request: GraphRunRequest): AsyncGenerator<GraphEvent> {
  const runId = resolveRunId(request.config);
  const { graph } = request;
  if (
    !needsCallbackEvents(request.streamModes, request.subgraphs) &&
    isChunkStreamingGraph(graph)
  ) {
    return streamGraphChunks(request, graph, runId);
  }
  return streamCallbackEvents(request, runId);
}

/**
 * Chat models stream their tokens when a callback handler prefers it, as `streamEvents`' own
 * handler does; the messages they build (ids included) are then the same on both paths.
 */
const PREFER_STREAMING = { name: 'berth_prefer_streaming', lc_prefer_streaming: true } as const;

/** The root graph's own chunks, through `stream`: no callback event is made. */
async function* streamGraphChunks(
  request: GraphRunRequest,
  graph: ChunkStreamingGraph,
  runId: string,
): AsyncGenerator<GraphEvent> {
  const requested = new Set(request.streamModes);
  const tracker = finalStateTrackerOf(request);
  const options = { ...graphStreamOptionsOf(request, runId), callbacks: [PREFER_STREAMING] };
  for await (const raw of await graph.stream(graphInputOf(request), options)) {
    const chunk = toGraphChunk(raw, false);
    if (chunk === undefined || observeFinalState(chunk, tracker, requested)) continue;
    const modeEvent = toModeEvent(chunk, requested, false);
    if (modeEvent !== undefined) yield modeEvent;
  }
}

async function* streamCallbackEvents(
  request: GraphRunRequest,
  runId: string,
): AsyncGenerator<GraphEvent> {
  const requested = new Set(request.streamModes);
  const { subgraphs } = request;
  const legacyMessages = requested.has('messages') ? new LegacyMessagesTracker() : undefined;
  const tracker = finalStateTrackerOf(request);

  for await (const raw of await openEventStream(request, runId)) {
    const event = toCallbackEvent(raw);
    if (event === undefined || event.tags.includes('langsmith:hidden')) continue;

    const isGraphStreamChunk =
      event.event === 'on_chain_stream' && (subgraphs || event.run_id === runId);
    if (isGraphStreamChunk) {
      const chunk = toGraphChunk(event.data['chunk'], subgraphs);
      if (chunk !== undefined && observeFinalState(chunk, tracker, requested)) continue;
      const modeEvent = chunk && toModeEvent(chunk, requested, subgraphs);
      if (modeEvent !== undefined) yield modeEvent;
    } else if (requested.has('events')) {
      yield { event: 'events', payload: event.raw };
    }

    if (legacyMessages !== undefined) {
      if (isGraphStreamChunk) {
        yield* legacyMessages.onStateChunk(legacyStateChunkOf(event.data['chunk']));
      } else if (event.event === 'on_chat_model_stream' && !event.tags.includes('nostream')) {
        yield* legacyMessages.onChatModelChunk(event.data['chunk'], event.metadata);
      }
    }
  }
}
