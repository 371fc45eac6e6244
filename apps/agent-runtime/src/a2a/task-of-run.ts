import { TaskState, type Task, type TaskStatus } from '@a2a-js/sdk';
import type { RunCreatedData, RunFinishedData, RunStatus } from '../run-records/run.events.js';
import { userMessageOfRun } from './message-input.js';
import {
  agentMessage,
  answerArtifact,
  hasInterrupts,
  interruptParts,
  textPart,
} from './task-parts.js';

export interface TaskIds {
  readonly taskId: string;
  readonly contextId: string;
}

/** The status of a task whose current run has this status (and, once finished, this end). */
export function taskStatusOf(
  ids: TaskIds,
  run: { readonly runId: string; readonly status: RunStatus },
  finished: RunFinishedData | undefined,
): TaskStatus {
  const at = finished?.finished_at ?? new Date().toISOString();
  const said = (state: TaskState, parts: ReturnType<typeof textPart>[]): TaskStatus => ({
    state,
    message: agentMessage({ ...ids, messageId: `${run.runId}-${state}` }, parts),
    timestamp: at,
  });
  if (!finished) return { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: at };
  switch (finished.status) {
    case 'success':
      return hasInterrupts(finished.interrupts)
        ? said(TaskState.TASK_STATE_INPUT_REQUIRED, interruptParts(finished.interrupts))
        : said(TaskState.TASK_STATE_COMPLETED, answerArtifact(finished.values).parts);
    case 'interrupted':
      return said(TaskState.TASK_STATE_CANCELED, [textPart('The run was cancelled.')]);
    case 'timeout':
      return said(TaskState.TASK_STATE_FAILED, [textPart('The run timed out.')]);
    case 'error': {
      const message = finished.error?.message;
      return said(TaskState.TASK_STATE_FAILED, [
        textPart(typeof message === 'string' ? message : 'The run failed.'),
      ]);
    }
  }
}

/** One run of a task: how it was created, its status, and once finished, its end. */
export interface TaskTurn {
  readonly created: RunCreatedData;
  readonly status: RunStatus;
  readonly finished: RunFinishedData | undefined;
}

/**
 * A task as its runs show it (`earlier` ones, then the `current`): the current one's status and
 * answer, and as history each run's user message (its input, or what resumed it) followed by the
 * agent's reply once the run ended.
 */
export function taskOfRuns(ids: TaskIds, earlier: readonly TaskTurn[], current: TaskTurn): Task {
  const statusOf = (turn: TaskTurn): TaskStatus =>
    taskStatusOf(ids, { runId: turn.created.run_id, status: turn.status }, turn.finished);
  const status = statusOf(current);
  const history = [...earlier, current].flatMap((turn) => {
    const asked = userMessageOfRun(ids, turn.created);
    const reply = turn === current ? status.message : statusOf(turn).message;
    return reply ? [asked, reply] : [asked];
  });
  const answer = status.state === TaskState.TASK_STATE_COMPLETED ? current.finished : undefined;
  return {
    id: ids.taskId,
    contextId: ids.contextId,
    status,
    artifacts: answer ? [answerArtifact(answer.values)] : [],
    history,
    metadata: { run_id: current.created.run_id, thread_id: ids.contextId },
  };
}
