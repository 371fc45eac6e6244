import {
  isCheckpointEnvelope,
  toCheckpointsEvent,
  toDebugEvent,
  toDebugTask,
} from './debug-payloads.js';
import { withGraphNode } from './legacy-messages.js';
import type { StreamMode } from './stream-modes.js';

/** Left out of the run's stream: the run did not ask for what this chunk carries. */
export const NOT_REQUESTED: unique symbol = Symbol('not requested');

/** The data of a chunk's event, before it is made plain JSON; NOT_REQUESTED for none. */
type ModePayload = (payload: unknown, requested: ReadonlySet<StreamMode>) => unknown;

/** `[message, metadata]`, with `graph_node` added to the metadata. */
function messageTuple(payload: unknown): unknown {
  if (!Array.isArray(payload) || payload.length !== 2) return payload;
  const [message, metadata] = payload as [unknown, unknown];
  return [message, withGraphNode(metadata)];
}

/**
 * LangGraph interleaves lightweight envelopes before `values` of streamed subgraph runs; the
 * reference forwards them only while the full `checkpoints` mode is not requested.
 */
function checkpointPayload(payload: unknown, requested: ReadonlySet<StreamMode>): unknown {
  const wanted = requested.has('checkpoints');
  if (isCheckpointEnvelope(payload)) return wanted ? NOT_REQUESTED : payload;
  return wanted ? toCheckpointsEvent(payload) : NOT_REQUESTED;
}

const only =
  (mode: StreamMode, convert: (payload: unknown) => unknown): ModePayload =>
  (payload, requested) =>
    requested.has(mode) ? convert(payload) : NOT_REQUESTED;

/** How the library's chunk of each mode becomes the data the reference sends for it. */
const MODE_PAYLOADS: Readonly<Record<string, ModePayload>> = {
  messages: only('messages-tuple', messageTuple),
  checkpoints: checkpointPayload,
  debug: only('debug', toDebugEvent),
  tasks: only('tasks', toDebugTask),
};

/** The data of one chunk of the graph's own stream, in one pass whatever its mode. */
export function modePayloadOf(
  mode: string,
  payload: unknown,
  requested: ReadonlySet<StreamMode>,
): unknown {
  const convert = MODE_PAYLOADS[mode];
  if (convert) return convert(payload, requested);
  return requested.has(mode as StreamMode) ? payload : NOT_REQUESTED;
}
