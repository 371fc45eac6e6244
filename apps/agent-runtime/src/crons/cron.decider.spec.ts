import { describe, expect, it } from '@jest/globals';
import { deciderSpecification, foldEvents } from '#libs/domain';
import { cronDecider, type CronCommand, type CronState } from './cron.decider.js';
import type { CronCreatedData, CronEvent } from './cron.events.js';
import { CronSchedule } from './cron-schedule.js';

const created: Omit<CronCreatedData, 'next_run_date'> = {
  cron_id: 'c1',
  assistant_id: 'a1',
  thread_id: null,
  schedule: '*/10 * * * *',
  timezone: null,
  end_time: '2026-01-01T12:00:00.000Z',
  enabled: true,
  on_run_completed: 'delete',
  payload: { input: { steps: 1 } },
  metadata: { tag: 't' },
  user_id: null,
  created_at: '2026-01-01T10:03:00.000Z',
};

const cron = deciderSpecification(cronDecider);

/** Each command decided on the history the ones before it made. */
function run(commands: CronCommand[]): { state: CronState; events: CronEvent[] } {
  const events: CronEvent[] = [];
  for (const command of commands) events.push(...cron.given(events).when(command).events());
  return { state: foldEvents(cronDecider, events), events };
}

const fire = (tick: string, now = tick): CronCommand => ({
  kind: 'fire',
  tick,
  runId: `run-${tick}`,
  threadId: null,
  now,
});

describe('the cron decider', () => {
  it('gives a new cron its first tick as next_run_date', () => {
    const [event] = run([{ kind: 'create', cron: created }]).events;
    expect(event?.data).toMatchObject({ next_run_date: '2026-01-01T10:10:00.000Z' });
  });

  it('fires a tick once, however many times it is asked', () => {
    const { events } = run([
      { kind: 'create', cron: created },
      fire('2026-01-01T10:10:00.000Z'),
      fire('2026-01-01T10:10:00.000Z'),
    ]);
    expect(events.map((event) => event.type)).toEqual(['CronCreated', 'CronFired']);
    expect(events[1]?.data).toMatchObject({ next_run_date: '2026-01-01T10:20:00.000Z' });
  });

  it('after missed ticks fires the latest once, and never the older ones afterwards', () => {
    const { events } = run([
      { kind: 'create', cron: created },
      fire('2026-01-01T10:10:00.000Z'),
      fire('2026-01-01T10:50:00.000Z', '2026-01-01T10:52:30.000Z'),
      fire('2026-01-01T10:30:00.000Z', '2026-01-01T10:52:31.000Z'),
    ]);
    const fires = events.filter((event) => event.type === 'CronFired');
    expect(fires.map((event) => event.data)).toMatchObject([
      { tick: '2026-01-01T10:10:00.000Z', previous_tick: null },
      {
        tick: '2026-01-01T10:50:00.000Z',
        previous_tick: '2026-01-01T10:10:00.000Z',
        next_run_date: '2026-01-01T11:00:00.000Z',
      },
    ]);
  });

  it.each([
    ['not one of its ticks', '2026-01-01T10:15:00.000Z'],
    ['before it was made', '2026-01-01T10:00:00.000Z'],
    ['past its end_time', '2026-01-01T12:10:00.000Z'],
  ])('does not fire a tick %s', (_why, tick) => {
    expect(run([{ kind: 'create', cron: created }, fire(tick)]).events).toHaveLength(1);
  });

  it('does not fire once disabled or deleted; re-enabled it has a next run again', () => {
    const now = '2026-01-01T10:05:00.000Z';
    const disabled = run([
      { kind: 'create', cron: created },
      { kind: 'update', changes: { enabled: false }, now },
      fire('2026-01-01T10:10:00.000Z'),
    ]);
    expect(disabled.events.map((event) => event.type)).toEqual(['CronCreated', 'CronUpdated']);
    expect(disabled.events[1]?.data).toMatchObject({ next_run_date: null });
    const enable: CronCommand = {
      kind: 'update',
      changes: { enabled: true, metadata: { more: 1 } },
      now,
    };
    const [again] = cron.given(disabled.events).when(enable).events();
    expect(again?.data).toMatchObject({ next_run_date: '2026-01-01T10:10:00.000Z' });
    const enabled = run([
      { kind: 'create', cron: created },
      { kind: 'update', changes: { enabled: false }, now },
      enable,
    ]);
    expect(enabled.state.settings?.metadata).toEqual({ tag: 't', more: 1 });
    const gone = [
      ...enabled.events,
      ...cron.given(enabled.events).when({ kind: 'delete', cronId: 'c1', now }).events(),
    ];
    cron.given(gone).when(fire('2026-01-01T10:10:00.000Z')).then([]);
    cron
      .given(gone)
      .when({ kind: 'delete', cronId: 'c1', now })
      .thenFails('not_found', /not found/);
  });

  it('refuses to make a cron twice', () => {
    const { events } = run([{ kind: 'create', cron: created }]);
    cron
      .given(events)
      .when({ kind: 'create', cron: created })
      .thenFails('conflict', /^Cron c1 already exists$/);
  });
});

describe('the cron decider, on what the crons read model cannot hold', () => {
  const given = cron.given(run([{ kind: 'create', cron: created }]).events);
  const update = (changes: Record<string, unknown>): CronCommand => ({
    kind: 'update',
    changes,
    now: '2026-01-01T10:05:00.000Z',
  });

  it('refuses a null schedule even when the cron is disabled at the same time', () => {
    given.when(update({ enabled: false, schedule: null })).thenFails('validation', /^schedule /);
  });

  it.each([
    [{ schedule: null }, /^schedule must be a string, not null/],
    [{ schedule: '' }, /^schedule must not be empty/],
    [{ schedule: 'x'.repeat(201) }, /^schedule must be at most 200/],
    [{ schedule: 'not a schedule' }, /^schedule is not valid/],
    [{ schedule: 5 }, /^schedule must be a string, not a number/],
    [{ enabled: null }, /^enabled must be true or false, not null/],
    [{ enabled: 'yes' }, /^enabled must be true or false/],
    [{ timezone: 'Nowhere/Else' }, /^timezone is not valid/],
    [{ timezone: '' }, /^timezone must not be empty/],
    [{ end_time: 'tomorrow' }, /^end_time must be a date/],
    [{ end_time: '0000-01-01T00:00:00Z' }, /^end_time must be between/],
    [{ on_run_completed: null }, /^on_run_completed must be "delete" or "keep"/],
    [{ on_run_completed: 'archive' }, /^on_run_completed must be one of/],
    [{ payload: null }, /^payload must be an object, not null/],
    [{ metadata: null }, /^metadata must be an object, not null/],
    [{ metadata: [] }, /^metadata must be an object, not a list/],
  ])('refuses the update %j', (changes, message) => {
    given.when(update(changes)).thenFails('validation', message);
  });

  it.each([
    [{ timezone: null }],
    [{ end_time: null }],
    [{ enabled: false }],
    [{ schedule: '@hourly', timezone: 'Europe/Oslo' }],
  ])('accepts the update %j', (changes) => {
    expect(given.when(update(changes)).events()).toHaveLength(1);
  });

  it.each([
    [{ schedule: null }, /^schedule /],
    [{ enabled: null }, /^enabled /],
    [{ metadata: null }, /^metadata /],
    [{ payload: 'x' }, /^payload /],
    [{ end_time: 'soon' }, /^end_time /],
  ])('refuses to create a cron with %j', (fields, message) => {
    cron
      .given([])
      .when({ kind: 'create', cron: { ...created, ...fields } as typeof created })
      .thenFails('validation', message);
  });
});

describe('cron schedules', () => {
  it('reads ticks in the given time zone', () => {
    const oslo = CronSchedule.parse('0 9 * * *', 'Europe/Oslo');
    expect(oslo.tickAfter(new Date('2026-01-01T07:00:00Z')).toISOString()).toBe(
      '2026-01-01T08:00:00.000Z',
    );
    expect(oslo.tickAtOrBefore(new Date('2026-01-01T08:00:00Z'))?.toISOString()).toBe(
      '2026-01-01T08:00:00.000Z',
    );
    expect(CronSchedule.parse('@hourly', null).tickAfter(new Date('2026-01-01T07:30:00Z'))).toEqual(
      new Date('2026-01-01T08:00:00Z'),
    );
  });

  it.each([
    ['* * * *', null, /4 fields/],
    ['* * * * * *', null, /6 fields/],
    ['61 * * * *', null, /0-59/],
    ['* * * * *', 'Nowhere/Else', /Unknown time zone/],
  ])('refuses %s in %s', (schedule, zone, message) => {
    expect(() => CronSchedule.parse(schedule, zone)).toThrow(message);
  });
});
