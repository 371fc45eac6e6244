import { isRecord } from '../common/records.js';

interface StreamedTask {
  readonly id: string;
  readonly name: string;
  readonly interrupts?: unknown[];
}

/** A root `checkpoints` payload: the checkpoint's values and the tasks it scheduled next. */
interface StreamedCheckpoint {
  readonly values: unknown;
  readonly next: readonly string[];
  readonly tasks: readonly StreamedTask[];
}

/** The state a run ended with: what `getState` gives of it that a thread keeps. */
export interface StreamedState {
  readonly values: unknown;
  readonly next: readonly string[];
  readonly tasks: readonly StreamedTask[];
}

/** A `tasks` payload that reports how a task ended (a task's start has no `result`). */
interface StreamedTaskResult {
  readonly id: string;
  readonly interrupts: readonly unknown[];
  readonly error: unknown;
}

function isStreamedTask(value: unknown): value is StreamedTask {
  return isRecord(value) && typeof value.id === 'string' && typeof value.name === 'string';
}

function isStreamedCheckpoint(value: unknown): value is StreamedCheckpoint {
  return (
    isRecord(value) &&
    'values' in value &&
    Array.isArray(value.next) &&
    Array.isArray(value.tasks) &&
    value.tasks.every(isStreamedTask)
  );
}

function isTaskResult(value: unknown): value is StreamedTaskResult {
  return isRecord(value) && typeof value.id === 'string' && 'result' in value;
}

function interruptsOf(result: StreamedTaskResult): unknown[] {
  return Array.isArray(result.interrupts) ? result.interrupts : [];
}

/**
 * The state a run ends with, as the graph's own stream tells it (the `checkpoints` and `tasks`
 * modes a run adds for itself): the last root checkpoint's values and the tasks it scheduled,
 * with the interrupts and errors those tasks reported. It equals what `getState` reads back
 * while no task of that checkpoint wrote anything: a task that did (a sibling of an interrupted
 * one, or a step after which the run stopped before its next checkpoint) has writes that only
 * the saved state applies, so the tracker then knows no answer and the state is read.
 */
export class FinalStateTracker {
  private checkpoint: StreamedCheckpoint | undefined;
  private readonly results = new Map<string, StreamedTaskResult>();
  private unknowable = false;

  /** A root `checkpoints` chunk (not the envelope LangGraph puts before a subgraph's values). */
  onCheckpoint(payload: unknown): void {
    if (!isStreamedCheckpoint(payload)) {
      this.unknowable = true;
      return;
    }
    this.checkpoint = payload;
    this.results.clear();
  }

  /** A root `tasks` chunk: a task's start is ignored, its result kept. */
  onTask(payload: unknown): void {
    if (isTaskResult(payload)) this.results.set(payload.id, payload);
  }

  /** The run's final state, or undefined when only a read of the saved state can tell it. */
  snapshot(): StreamedState | undefined {
    const { checkpoint } = this;
    if (this.unknowable || checkpoint === undefined) return undefined;
    const scheduled = new Set(checkpoint.tasks.map((task) => task.id));
    for (const result of this.results.values()) {
      const wrote = result.error == null && interruptsOf(result).length === 0;
      if (wrote || !scheduled.has(result.id)) return undefined;
    }
    return {
      values: checkpoint.values,
      next: checkpoint.next,
      tasks: checkpoint.tasks.map((task) => {
        const result = this.results.get(task.id);
        return result ? { ...task, interrupts: interruptsOf(result) } : task;
      }),
    };
  }
}
