import type { AuthEventSpec } from './auth-event.decorator.js';

type Json = Record<string, unknown>;
const isRecord = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The value an auth handler gets for a route, in the shapes of the SDK's auth types. */
export function authValueOf(
  spec: AuthEventSpec,
  params: Readonly<Record<string, string>>,
  body: Readonly<Json>,
): Json {
  const metadata = isRecord(body.metadata) ? { ...body.metadata } : {};
  const pick = (...keys: string[]): Json =>
    Object.fromEntries(
      keys.filter((key) => body[key] !== undefined).map((key) => [key, body[key]]),
    );
  if (spec.resource === 'crons') return cronAuthValue(spec, params, body, metadata);
  if (spec.resource === 'assistants') {
    if (spec.action === 'create') return { ...body, metadata };
    if (spec.action === 'search') return { ...pick('graph_id', 'limit', 'offset'), metadata };
    return {
      assistant_id: params.assistantId,
      ...(spec.action === 'update' ? { ...body, metadata } : {}),
    };
  }
  switch (spec.action) {
    case 'create':
      return { ...pick('thread_id', 'if_exists'), metadata };
    case 'search':
      return { ...pick('ids', 'status', 'values', 'limit', 'offset'), metadata };
    case 'create_run':
      return {
        thread_id: params.threadId ?? null,
        assistant_id: body.assistant_id,
        run_id: null,
        status: 'pending',
        metadata,
        ...pick('multitask_strategy', 'if_not_exists', 'after_seconds'),
        prevent_insert_if_inflight: false,
        kwargs: { ...body },
      };
    case 'update':
      return { thread_id: params.threadId, ...(isRecord(body.metadata) ? { metadata } : {}) };
    case 'delete':
      return { thread_id: params.threadId, ...(params.runId ? { run_id: params.runId } : {}) };
    case 'read':
      return { thread_id: params.threadId };
  }
}

/** The SDK's `CronCreate`, `CronRead`, `CronUpdate`, `CronDelete` and `CronSearch` values. */
function cronAuthValue(
  spec: AuthEventSpec,
  params: Readonly<Record<string, string>>,
  body: Readonly<Json>,
  metadata: Json,
): Json {
  const { schedule, end_time, assistant_id, limit, offset, thread_id, ...payload } = body;
  switch (spec.action) {
    case 'create':
      return {
        payload: { assistant_id, ...payload },
        schedule,
        cron_id: null,
        thread_id: params.threadId ?? null,
        user_id: null,
        end_time: end_time ?? null,
        metadata,
      };
    case 'search':
      return { assistant_id, thread_id, limit, offset, metadata };
    case 'update':
      return { cron_id: params.cronId, payload, schedule: schedule ?? null };
    case 'read':
    case 'delete':
    case 'create_run':
      return { cron_id: params.cronId };
  }
}

/**
 * Both containments in one (`metadata @> merged` holds exactly when both hold), or undefined
 * when no metadata can pass both (one key asked equal to two different values).
 */
export function mergeContainment(asked: Json, required: Json): Json | undefined {
  const merged: Json = { ...asked };
  for (const [key, value] of Object.entries(required)) {
    if (!(key in merged)) {
      merged[key] = value;
      continue;
    }
    const current = merged[key];
    if (Array.isArray(current) && Array.isArray(value)) {
      merged[key] = [...(current as unknown[]), ...(value as unknown[])];
    } else if (JSON.stringify(current) !== JSON.stringify(value)) {
      return undefined;
    }
  }
  return merged;
}
