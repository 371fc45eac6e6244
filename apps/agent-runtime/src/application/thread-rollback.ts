interface CheckpointTuple {
  config: { configurable?: Record<string, unknown> };
  checkpoint: Record<string, unknown>;
  metadata?: Record<string, unknown>;
}

interface Saver {
  list(
    config: Record<string, unknown>,
    options?: Record<string, unknown>,
  ): AsyncIterable<CheckpointTuple>;
  put(
    config: Record<string, unknown>,
    checkpoint: Record<string, unknown>,
    metadata: Record<string, unknown>,
    newVersions: Record<string, unknown>,
  ): Promise<unknown>;
}

/** The checkpointer and checkpoint library of the graph that ran. */
export interface RollbackCheckpoints {
  readonly saver: Saver;
  readonly library: Library;
}

interface Library {
  uuid6(clockseq: number): string;
  emptyCheckpoint(): Record<string, unknown>;
  copyCheckpoint(checkpoint: Record<string, unknown>): Record<string, unknown>;
}

/**
 * Undoes what a cancelled run did to its thread: a new checkpoint, on top of the run's, restores
 * the state the thread had before the run started (the newest checkpoint of another run, or an
 * empty one). The run's own checkpoints stay in the history, as everything stays in the log.
 */
export async function rollBackThread(
  { saver, library }: RollbackCheckpoints,
  threadId: string,
  runId: string,
): Promise<void> {
  let latest: CheckpointTuple | undefined;
  let before: CheckpointTuple | undefined;
  for await (const tuple of saver.list({
    configurable: { thread_id: threadId, checkpoint_ns: '' },
  })) {
    latest ??= tuple;
    if (tuple.metadata?.run_id !== runId) {
      before = tuple;
      break;
    }
  }
  if (!latest || latest.metadata?.run_id !== runId) return;
  const restored = before ? library.copyCheckpoint(before.checkpoint) : library.emptyCheckpoint();
  const step = typeof latest.metadata.step === 'number' ? latest.metadata.step + 1 : 0;
  await saver.put(
    { configurable: { ...latest.config.configurable, thread_id: threadId, checkpoint_ns: '' } },
    { ...restored, id: library.uuid6(-1), ts: new Date().toISOString() },
    { source: 'update', step, parents: {}, rolled_back_run_id: runId },
    {},
  );
}
