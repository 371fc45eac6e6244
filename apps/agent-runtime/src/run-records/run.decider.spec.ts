import { describe, expect, it } from '@jest/globals';
import { deciderSpecification } from '#libs/domain';
import { lifecycleFromLast, runDecider, type RunLifecycleCommand } from './run.decider.js';
import type { RunEvent, RunFinishedData } from './run.events.js';
import { runCreatedFixture } from './testing/run-created.fixture.js';

const created = runCreatedFixture;

const finished = (attempt: number): RunFinishedData => ({
  run_id: 'r1',
  thread_id: 't1',
  status: 'success',
  attempt,
  error: null,
  state_captured: true,
  values: null,
  values_extends: null,
  next: [],
  interrupts: {},
  temporary: false,
  finished_at: '2026-01-01T00:01:00.000Z',
});

const create: RunLifecycleCommand = { kind: 'create', data: created };
const start = (attempt: number): RunLifecycleCommand => ({
  kind: 'start',
  attempt,
  startedAt: '2026-01-01T00:00:01.000Z',
});
const finish = (attempt: number, alsoDelete = false): RunLifecycleCommand => ({
  kind: 'finish',
  finished: finished(attempt),
  alsoDelete,
});

const run = deciderSpecification(runDecider);

/** The events that the commands decide, each on the state the ones before it left. */
function history(commands: readonly RunLifecycleCommand[]): RunEvent[] {
  const events: RunEvent[] = [];
  let state = runDecider.initialState;
  for (const command of commands) {
    const decided = runDecider.decide(command, state);
    state = decided.reduce((folded, event) => runDecider.evolve(folded, event), state);
    events.push(...decided);
  }
  return events;
}

/** Given the commands already decided, when `command` is decided: its events, or its refusal. */
function given(...commands: RunLifecycleCommand[]) {
  const before = run.given(history(commands));
  return {
    when: (command: RunLifecycleCommand) => {
      const decision = before.when(command);
      return {
        thenTypes: () => decision.events().map((event) => event.type),
        thenEvents: () => decision.events(),
        thenRefused: (code: 'conflict' | 'not_found', message: RegExp) => {
          decision.thenFails(code, message);
        },
      };
    },
  };
}

describe('the run decider', () => {
  it('creates a run once, with the first chunk of attempt 1', () => {
    const events = given().when(create).thenEvents();
    expect(events.map((event) => event.type)).toEqual(['RunCreated', 'RunStepEmitted']);
    expect(events[1]?.data).toEqual({
      seq: 0,
      event: 'metadata',
      data: { run_id: 'r1', attempt: 1 },
    });
    expect(given(create).when(create).thenTypes()).toEqual([]);
  });

  it('starts attempts in order, naming the run and its thread', () => {
    expect(given(create).when(start(1)).thenEvents()).toEqual([
      {
        type: 'RunStarted',
        data: { run_id: 'r1', thread_id: 't1', attempt: 1, started_at: '2026-01-01T00:00:01.000Z' },
      },
    ]);
    expect(given(create, start(1)).when(start(2)).thenTypes()).toEqual(['RunStarted']);
    given(create, start(2))
      .when(start(1))
      .thenRefused('conflict', /Attempt 1 is stale/);
    given()
      .when(start(1))
      .thenRefused('not_found', /Run not found/);
  });

  it('never starts a finished run again', () => {
    given(create, start(1), finish(1))
      .when(start(2))
      .thenRefused('conflict', /has finished/);
  });

  it('lets only the running attempt finish the run, once', () => {
    expect(given(create, start(1)).when(finish(1)).thenTypes()).toEqual(['RunFinished']);
    given(create, start(1), start(2))
      .when(finish(1))
      .thenRefused('conflict', /attempt 2 is the one running/);
    expect(given(create, start(1), finish(1)).when(finish(1)).thenTypes()).toEqual([]);
  });

  it('finishes a run cancelled while it waited as attempt 0, with RunDeleted on a rollback', () => {
    expect(given(create).when(finish(0, true)).thenTypes()).toEqual(['RunFinished', 'RunDeleted']);
    given(create)
      .when(finish(1))
      .thenRefused('conflict', /no attempt started/);
  });

  it('deletes only a finished run, and only once', () => {
    expect(
      given(create, start(1), finish(1)).when({ kind: 'delete', at: 'now' }).thenEvents(),
    ).toEqual([{ type: 'RunDeleted', data: { run_id: 'r1', thread_id: 't1', deleted_at: 'now' } }]);
    given(create, start(1))
      .when({ kind: 'delete', at: 'now' })
      .thenRefused('conflict', /cancel it first/);
    given(create, start(1), finish(1, true))
      .when({ kind: 'delete', at: 'now' })
      .thenRefused('not_found', /Run not found/);
  });

  it('reads what deleting needs from the last event of the stream', () => {
    const last: RunEvent = { type: 'RunFinished', data: finished(3) };
    expect(lifecycleFromLast(last)).toMatchObject({
      phase: 'finished',
      runId: 'r1',
      threadId: 't1',
    });
    expect(lifecycleFromLast(undefined).phase).toBe('none');
    expect(
      lifecycleFromLast({ type: 'RunStepEmitted', data: { seq: 4, event: 'values', data: {} } })
        .phase,
    ).toBe('started');
  });
});
