import type { BuiltRunGraph } from '../application/run-graph.js';
import type { FinalStateTracker } from '../execution/final-state.js';
import { streamGraphRun, type StreamedEvent, type StreamMode } from '../execution/graph-stream.js';
import { withStreamTransformers } from '../execution/stream-transformers.js';
import type { ClaimedRun } from '../run-records/run-queue.js';

/** The stream events of one run of its built graph, as the run's options ask for them. */
export function streamRunEvents(
  run: ClaimedRun['payload'],
  built: BuiltRunGraph,
  signal: AbortSignal,
  finalState: FinalStateTracker,
): AsyncIterable<StreamedEvent> {
  const streamModes = run.kwargs.stream_mode as StreamMode[];
  const graphChunks = streamGraphRun({
    graph: built.graph,
    input: run.kwargs.input,
    command: run.command,
    createCommand: built.createCommand,
    config: built.config,
    context: run.context,
    streamModes,
    subgraphs: run.stream_subgraphs,
    interruptBefore: run.kwargs.interrupt_before ?? undefined,
    interruptAfter: run.kwargs.interrupt_after ?? undefined,
    durability: run.durability ?? undefined,
    signal,
    finalState,
  });
  return withStreamTransformers(built.graph, streamModes.includes('custom'), graphChunks);
}
