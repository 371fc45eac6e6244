import type { JsonObject } from '#libs/event-store';
import { callerConfigurable } from '../auth/run-caller.js';
import type { ClaimedRun } from '../run-records/run-queue.js';

/** The run's recorded config, with the user it runs for (kept with the queued run only). */
export function runGraphConfig(
  { payload: run, attempt, caller }: ClaimedRun,
  langgraphVersion: string,
): JsonObject {
  const config = run.kwargs.config;
  const configurable = {
    ...(config.configurable as JsonObject),
    ...callerConfigurable(caller),
  };
  if (configurable.checkpoint_id === null) delete configurable.checkpoint_id;
  return {
    ...config,
    configurable,
    metadata: {
      ...(config.metadata as JsonObject),
      graph_id: run.graph_id,
      assistant_id: run.assistant_id,
      run_attempt: attempt,
      langgraph_version: langgraphVersion,
      langgraph_plan: 'developer',
      langgraph_host: 'self-hosted',
      thread_id: run.thread_id,
      run_id: run.run_id,
    },
  };
}
