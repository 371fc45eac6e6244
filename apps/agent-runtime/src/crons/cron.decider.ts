import {
  conflict,
  invalid,
  notFound,
  requireBoolean,
  requireInstantOrNull,
  requireObject,
  requireOneOf,
  requireText,
  requireTextOrNull,
  type Decider,
} from '#libs/domain';
import { CronSchedule, CronScheduleError } from './cron-schedule.js';
import type { CronCreatedData, CronEvent, CronSettings } from './cron.events.js';

export interface CronState {
  readonly exists: boolean;
  readonly settings: CronSettings | undefined;
  readonly createdAt: string | null;
  /** The last tick that fired; ticks up to it never fire again. */
  readonly lastTick: string | null;
}

export type CronCommand =
  | { readonly kind: 'create'; readonly cron: Omit<CronCreatedData, 'next_run_date'> }
  | { readonly kind: 'update'; readonly changes: Partial<CronSettings>; readonly now: string }
  | { readonly kind: 'delete'; readonly cronId: string; readonly now: string }
  | {
      readonly kind: 'fire';
      readonly tick: string;
      readonly runId: string;
      readonly threadId: string | null;
      readonly now: string;
    };

export const initialCronState: CronState = {
  exists: false,
  settings: undefined,
  createdAt: null,
  lastTick: null,
};

export function evolveCron(state: CronState, event: CronEvent): CronState {
  switch (event.type) {
    case 'CronCreated': {
      const { schedule, timezone, end_time, enabled, on_run_completed, payload, metadata } =
        event.data;
      return {
        exists: true,
        settings: { schedule, timezone, end_time, enabled, on_run_completed, payload, metadata },
        createdAt: event.data.created_at,
        lastTick: null,
      };
    }
    case 'CronUpdated': {
      if (!state.settings) return state;
      const { metadata, payload, ...rest } = event.data.changes;
      return {
        ...state,
        settings: {
          ...state.settings,
          ...rest,
          payload: { ...state.settings.payload, ...(payload ?? {}) },
          metadata: { ...state.settings.metadata, ...(metadata ?? {}) },
        },
      };
    }
    case 'CronDeleted':
      return { ...initialCronState };
    case 'CronFired':
      return { ...state, lastTick: event.data.tick };
    default:
      // An event erased with the cron (`ContentErased`, its key destroyed) changes nothing.
      return state;
  }
}

/**
 * When the cron fires next after `after`: null once disabled, or when the next tick is past
 * `end_time`.
 */
export function nextRunDate(settings: CronSettings, after: string): string | null {
  if (!settings.enabled) return null;
  const next = CronSchedule.parse(settings.schedule, settings.timezone).tickAfter(new Date(after));
  if (settings.end_time !== null && next.getTime() > Date.parse(settings.end_time)) return null;
  return next.toISOString();
}

/**
 * Whether a tick fires: the cron exists and is enabled, the tick is one of its schedule's, after
 * the cron was made, not past its end, and later than the last tick fired. A tick is decided
 * once: a second replica, or a retry after a crash, finds it fired and does nothing.
 */
function mayFire(state: CronState, tick: string): boolean {
  const { settings } = state;
  if (!state.exists || !settings?.enabled || state.createdAt === null) return false;
  const at = Date.parse(tick);
  if (at < Date.parse(state.createdAt)) return false;
  if (settings.end_time !== null && at > Date.parse(settings.end_time)) return false;
  if (state.lastTick !== null && at <= Date.parse(state.lastTick)) return false;
  const schedule = CronSchedule.parse(settings.schedule, settings.timezone);
  return schedule.tickAtOrBefore(new Date(at))?.getTime() === at;
}

/** Schedules and time zones are short: the longest real ones are far below these. */
const MAX_SCHEDULE = 200;
const MAX_TIMEZONE = 100;

/**
 * What the `crons` read model holds: each given setting has the type of its column (`schedule`
 * and `enabled` are NOT NULL; `timezone`, `end_time` and `on_run_completed` may be null), so no
 * decided event can stop its projection. Undefined means not given.
 */
function checkSettings(settings: { readonly [K in keyof CronSettings]?: unknown }): void {
  const { schedule, timezone, end_time, enabled, on_run_completed, payload, metadata } = settings;
  if (schedule !== undefined) requireText('schedule', schedule, { maxLength: MAX_SCHEDULE });
  if (timezone !== undefined) requireTextOrNull('timezone', timezone, { maxLength: MAX_TIMEZONE });
  if (end_time !== undefined) requireInstantOrNull('end_time', end_time);
  if (enabled !== undefined) requireBoolean('enabled', enabled);
  if (on_run_completed !== undefined) {
    requireOneOf('on_run_completed', on_run_completed, ['delete', 'keep', null]);
  }
  if (payload !== undefined) requireObject('payload', payload);
  if (metadata !== undefined) requireObject('metadata', metadata);
}

/** The schedule and time zone a cron would have must be ones its ticks can be computed from. */
function checkSchedule(settings: CronSettings): void {
  try {
    CronSchedule.parse(settings.schedule, settings.timezone);
  } catch (error) {
    if (!(error instanceof CronScheduleError)) throw error;
    const field = error.message.startsWith('Unknown time zone') ? 'timezone' : 'schedule';
    throw invalid(field, `is not valid: ${error.message}`);
  }
}

function decide(command: CronCommand, state: CronState): CronEvent[] {
  switch (command.kind) {
    case 'create': {
      if (state.exists) throw conflict(`Cron ${command.cron.cron_id} already exists`);
      const { cron } = command;
      checkSettings(cron);
      checkSchedule(cron);
      return [
        {
          type: 'CronCreated',
          data: { ...cron, next_run_date: nextRunDate(cron, cron.created_at) },
        },
      ];
    }
    case 'update': {
      if (!state.exists || !state.settings) throw notFound('Cron not found');
      checkSettings(command.changes);
      if (command.changes.on_run_completed === null) {
        throw invalid('on_run_completed', 'must be "delete" or "keep"');
      }
      const after = evolveCron(state, {
        type: 'CronUpdated',
        data: { changes: command.changes, updated_at: command.now, next_run_date: null },
      });
      if (after.settings) checkSchedule(after.settings);
      return [
        {
          type: 'CronUpdated',
          data: {
            changes: command.changes,
            updated_at: command.now,
            next_run_date: after.settings ? nextRunDate(after.settings, command.now) : null,
          },
        },
      ];
    }
    case 'delete':
      if (!state.exists) throw notFound(`Cron ${command.cronId} not found`);
      return [{ type: 'CronDeleted', data: { cron_id: command.cronId, deleted_at: command.now } }];
    case 'fire':
      if (!state.settings || !mayFire(state, command.tick)) return [];
      return [
        {
          type: 'CronFired',
          data: {
            tick: command.tick,
            previous_tick: state.lastTick,
            run_id: command.runId,
            thread_id: command.threadId,
            fired_at: command.now,
            next_run_date: nextRunDate(state.settings, command.now),
          },
        },
      ];
  }
}

export const cronDecider: Decider<CronState, CronCommand, CronEvent> = {
  initialState: initialCronState,
  evolve: evolveCron,
  decide,
};
