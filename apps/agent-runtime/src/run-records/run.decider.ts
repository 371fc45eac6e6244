import { conflict, notFound, type Decider } from '#libs/domain';
import type { RunCreatedData, RunEvent, RunFinishedData } from './run.events.js';

/** Where a run is in its life, as its stream says. */
export interface RunLifecycle {
  readonly phase: 'none' | 'created' | 'started' | 'finished' | 'deleted';
  /** The attempt started last; 0 before any. */
  readonly attempt: number;
  /** The run and its thread, once known. */
  readonly runId: string | null;
  readonly threadId: string | null;
}

export type RunLifecycleCommand =
  | { readonly kind: 'create'; readonly data: RunCreatedData }
  | { readonly kind: 'start'; readonly attempt: number; readonly startedAt: string }
  | {
      readonly kind: 'finish';
      /** `attempt` 0: a run cancelled while it waited, before any attempt. */
      readonly finished: RunFinishedData;
      /** Cancelled with `rollback`: the run leaves its thread's runs too. */
      readonly alsoDelete: boolean;
    }
  | { readonly kind: 'delete'; readonly at: string };

/** The lifecycle events; the stream's chunks (`RunStepEmitted`) are the step writer's. */
export type RunLifecycleEvent = Exclude<RunEvent, { type: 'RunStepEmitted' }> | FirstChunk;

/** Attempt 1's `metadata` chunk, written with `RunCreated` so a streaming client has it at once. */
type FirstChunk = Extract<RunEvent, { type: 'RunStepEmitted' }>;

/** A run's first chunk: the same whichever process records the run's creation. */
export function firstChunkOf(runId: string): FirstChunk['data'] {
  return { seq: 0, event: 'metadata', data: { run_id: runId, attempt: 1 } };
}

export const initialRunLifecycle: RunLifecycle = {
  phase: 'none',
  attempt: 0,
  runId: null,
  threadId: null,
};

export function evolveRunLifecycle(state: RunLifecycle, event: RunEvent): RunLifecycle {
  switch (event.type) {
    case 'RunCreated':
      return {
        phase: 'created',
        attempt: 0,
        runId: event.data.run_id,
        threadId: event.data.thread_id,
      };
    case 'RunStarted':
      return { ...state, phase: 'started', attempt: event.data.attempt };
    case 'RunStepEmitted':
      return state;
    case 'RunFinished':
    case 'RunDeleted':
      return {
        ...state,
        phase: event.type === 'RunFinished' ? 'finished' : 'deleted',
        runId: event.data.run_id,
        threadId: event.data.thread_id,
      };
  }
}

/** The lifecycle after a run's stream, events as they are stored. */
export function foldRunLifecycle(
  events: readonly { readonly type: string; readonly data: unknown }[],
): RunLifecycle {
  return events.reduce(
    (state, event) => evolveRunLifecycle(state, event as RunEvent),
    initialRunLifecycle,
  );
}

/**
 * The lifecycle of a run whose stream ends with `last`: a run's rules look at whether it was
 * created, started, finished or deleted, and a finished run's stream ends with its outcome, so the
 * last event is enough where the attempt does not matter (deleting a run).
 */
export function lifecycleFromLast(last: RunEvent | undefined): RunLifecycle {
  const midway: RunLifecycle = { ...initialRunLifecycle, phase: 'started' };
  return last ? evolveRunLifecycle(midway, last) : initialRunLifecycle;
}

/**
 * The rules of a run's life: created once; an attempt starts only after the ones before it and
 * never once the run has finished; only the attempt running (or, for a run cancelled while it
 * waited, none) records the outcome, once; only a finished run is deleted.
 */
export function decideRunLifecycle(
  command: RunLifecycleCommand,
  state: RunLifecycle,
): RunLifecycleEvent[] {
  switch (command.kind) {
    case 'create': {
      if (state.phase !== 'none') return [];
      return [
        { type: 'RunCreated', data: command.data },
        { type: 'RunStepEmitted', data: firstChunkOf(command.data.run_id) },
      ];
    }
    case 'start':
      if (state.phase === 'none') throw notFound('Run not found');
      if (state.phase === 'finished' || state.phase === 'deleted') {
        throw conflict('The run has finished: it does not start again');
      }
      if (command.attempt <= state.attempt) {
        throw conflict(`Attempt ${command.attempt} is stale: attempt ${state.attempt} started`);
      }
      return [
        {
          type: 'RunStarted',
          data: {
            run_id: state.runId ?? '',
            thread_id: state.threadId ?? '',
            attempt: command.attempt,
            started_at: command.startedAt,
          },
        },
      ];
    case 'finish': {
      const { finished } = command;
      if (state.phase === 'none') throw notFound('Run not found');
      if (state.phase === 'finished' || state.phase === 'deleted') return [];
      const expected = state.phase === 'created' ? 0 : state.attempt;
      if (finished.attempt !== expected) {
        throw conflict(
          `Attempt ${finished.attempt} cannot finish the run: ${expected === 0 ? 'no attempt started' : `attempt ${expected} is the one running`}`,
        );
      }
      return [
        { type: 'RunFinished', data: finished },
        ...(command.alsoDelete
          ? [deleted(finished.run_id, finished.thread_id, finished.finished_at)]
          : []),
      ];
    }
    case 'delete':
      if (state.phase === 'none' || state.phase === 'deleted') throw notFound('Run not found');
      if (state.phase !== 'finished') {
        throw conflict('The run has not finished: cancel it first, then delete it');
      }
      return [deleted(state.runId ?? '', state.threadId ?? '', command.at)];
  }
}

function deleted(runId: string, threadId: string, at: string): RunLifecycleEvent {
  return { type: 'RunDeleted', data: { run_id: runId, thread_id: threadId, deleted_at: at } };
}

/** A run's life as a decider: its lifecycle folded from its stream, its commands decided on it. */
export const runDecider: Decider<RunLifecycle, RunLifecycleCommand, RunEvent> = {
  initialState: initialRunLifecycle,
  evolve: evolveRunLifecycle,
  decide: decideRunLifecycle,
};
