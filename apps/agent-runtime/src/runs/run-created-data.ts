import type { JsonObject } from '#libs/event-store';
import type { ResolvedAssistant } from '../assistants/assistants.service.js';
import { recordedConfigurable, type RunCaller } from '../auth/run-caller.js';
import type { Durability } from '../execution/graph-stream.js';
import type { RunCreatedData } from '../run-records/run.events.js';
import type { CreateRunDto } from './create-run/create-run.dto.js';

/** Who the new run is, and where: its ids, whether its thread is temporary, and when. */
export interface NewRun {
  readonly runId: string;
  readonly threadId: string;
  readonly temporary: boolean;
  readonly now: string;
}

/** `durability`, or the older `checkpoint_during` (false: only at exit), or LangGraph's default. */
function durabilityOf(body: CreateRunDto): Durability | null {
  if (body.durability) return body.durability;
  if (body.checkpoint_during === undefined) return null;
  return body.checkpoint_during ? 'async' : 'exit';
}

/** The run's `configurable`: the assistant's, the request's over it, and the run's own keys. */
function configurableOf(body: CreateRunDto, assistant: ResolvedAssistant, run: NewRun): JsonObject {
  const runConfigurable = (body.config?.configurable ?? {}) as JsonObject;
  const assistantConfigurable = (assistant.config.configurable ?? {}) as JsonObject;
  const checkpointId = body.checkpoint_id ?? body.checkpoint?.checkpoint_id;
  return {
    ...assistantConfigurable,
    ...runConfigurable,
    run_id: run.runId,
    user_id: runConfigurable.user_id ?? assistantConfigurable.user_id ?? null,
    graph_id: assistant.graph_id,
    thread_id: run.threadId,
    assistant_id: assistant.assistant_id,
    checkpoint_id: typeof checkpointId === 'string' ? checkpointId : null,
  };
}

/** What RunCreated records of a request: the request over its assistant's settings. */
export function runCreatedDataOf(
  body: CreateRunDto,
  assistant: ResolvedAssistant,
  run: NewRun,
  caller: RunCaller | undefined,
): RunCreatedData {
  const metadata = body.metadata ?? {};
  const configurable = configurableOf(body, assistant, run);
  return {
    run_id: run.runId,
    thread_id: run.threadId,
    assistant_id: assistant.assistant_id,
    assistant_version: assistant.version,
    graph_id: assistant.graph_id,
    metadata,
    kwargs: {
      input: body.input ?? null,
      config: {
        ...assistant.config,
        ...(body.config ?? {}),
        metadata: { created_by: 'system', ...assistant.metadata, ...metadata },
        configurable: caller ? recordedConfigurable(configurable, caller) : configurable,
      },
      webhook: body.webhook ?? null,
      temporary: run.temporary,
      stream_mode: body.stream_mode?.length ? body.stream_mode : ['values'],
      feedback_keys: body.feedback_keys?.length ? body.feedback_keys : null,
      interrupt_after: body.interrupt_after ?? null,
      interrupt_before: body.interrupt_before ?? null,
    },
    multitask_strategy: body.multitask_strategy ?? 'reject',
    command: body.command ?? null,
    context: { ...assistant.context, ...(body.context ?? {}) },
    stream_subgraphs: body.stream_subgraphs ?? false,
    created_at: run.now,
    not_before: body.after_seconds
      ? new Date(Date.parse(run.now) + body.after_seconds * 1000).toISOString()
      : null,
    durability: durabilityOf(body),
    timeout_seconds: body.timeout_seconds ?? null,
  };
}
