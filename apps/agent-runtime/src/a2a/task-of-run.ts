import { TaskState, type Task, type TaskStatus } from '@a2a-js/sdk';
import type { RunFinishedData, RunStatus } from '../run-records/run.events.js';
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

/** A task as its current run shows it: its status, and once completed, the answer. */
export function taskOfRun(
  ids: TaskIds,
  run: { readonly runId: string; readonly status: RunStatus },
  finished: RunFinishedData | undefined,
): Task {
  const status = taskStatusOf(ids, run, finished);
  const completed = status.state === TaskState.TASK_STATE_COMPLETED && finished;
  return {
    id: ids.taskId,
    contextId: ids.contextId,
    status,
    artifacts: completed ? [answerArtifact(finished.values)] : [],
    history: [],
    metadata: { run_id: run.runId, thread_id: ids.contextId },
  };
}
