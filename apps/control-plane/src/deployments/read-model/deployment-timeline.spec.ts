import { describe, expect, it } from '@jest/globals';
import type { HistoryEntry } from './deployment-history.js';
import { durationText, phasesOf, timelineOf } from './deployment-timeline.js';

const KEY = { kind: 'api_key', tenant_id: 't-1', key_id: 'key_0123abcd' };
const LISTENER = { kind: 'listener', listener_id: 'l-1' };
const REV_1 = '01900000-0000-7000-8000-000000000001';
const REV_2 = '01900000-0000-7000-8000-000000000002';
const T0 = Date.parse('2026-11-01T10:00:00.000Z');

/** A history written as [ms after T0, event, changes, revision, actor]. */
function historyOf(
  rows: readonly [number, string, Record<string, unknown>, string | null, object?][],
): HistoryEntry[] {
  return rows.map(([ms, event, changes, revision, actor], seq) => ({
    seq,
    event,
    recorded_at: new Date(T0 + ms).toISOString(),
    actor: (actor ?? LISTENER) as HistoryEntry['actor'],
    revision_id: revision,
    changes: changes as HistoryEntry['changes'],
  }));
}

const status = (value: string, message: string | null = null) => ({ status: value, message });

const HISTORY = historyOf([
  [0, 'DeploymentCreated', { name: 'shop', secrets: [] }, null, KEY],
  [10, 'UploadUrlIssued', { object_path: 'uploads/a.tgz' }, null, KEY],
  [1000, 'RevisionCreated', { trigger: 'patch', secrets_changed: [] }, REV_1, KEY],
  [1004, 'RevisionStatusChanged', status('AWAITING_BUILD'), REV_1],
  [1004, 'RevisionStatusChanged', status('BUILDING'), REV_1],
  [1029, 'RevisionStatusChanged', status('AWAITING_DEPLOY'), REV_1],
  [1030, 'RevisionStatusChanged', status('DEPLOYING'), REV_1],
  [4130, 'RevisionStatusChanged', status('DEPLOYED'), REV_1],
  [4130, 'RevisionActivated', { previous_revision_id: null }, REV_1],
  [4131, 'DeploymentStatusChanged', { status: 'READY' }, null],
  // One PATCH: its configuration and its new revision, by one key at one moment.
  [9000, 'DeploymentConfigChanged', { source_config: { install_command: 'npm i' } }, null, KEY],
  [
    9000,
    'RevisionCreated',
    { trigger: 'patch', secrets_changed: ['OPENAI_API_KEY'], secrets: ['OPENAI_API_KEY'] },
    REV_2,
    KEY,
  ],
  [9002, 'RevisionStatusChanged', status('AWAITING_BUILD'), REV_2],
  [9003, 'RevisionStatusChanged', status('BUILDING'), REV_2],
  [12003, 'RevisionStatusChanged', status('BUILD_FAILED', 'npm ci exited with 1'), REV_2],
  [20000, 'RevisionRedeployRequested', {}, REV_1, KEY],
  [20001, 'RevisionStatusChanged', status('AWAITING_DEPLOY'), REV_1],
  [20002, 'RevisionStatusChanged', status('DEPLOYING'), REV_1],
  [22002, 'RevisionStatusChanged', status('DEPLOYED'), REV_1],
  [22002, 'RevisionActivated', { previous_revision_id: REV_1 }, REV_1],
  [30000, 'DeploymentDeleteRequested', {}, null, KEY],
  [31000, 'DeploymentDeleted', {}, null],
]);

describe('timelineOf', () => {
  const timeline = timelineOf(HISTORY);

  it('gives a card to each change a person made, and a line to each walk of a revision', () => {
    expect(
      timeline.map((card) => [card.kind, 'title' in card ? card.title : card.revision_id]),
    ).toEqual([
      ['change', 'Deployment created'],
      ['change', 'Revision created'],
      ['status_walk', REV_1],
      ['change', 'Configuration changed, revision created'],
      ['status_walk', REV_2],
      ['failure', REV_2],
      ['change', 'Redeploy requested'],
      ['status_walk', REV_1],
      ['change', 'Delete requested'],
    ]);
  });

  it("says a revision's walk on one line, with the time each phase took", () => {
    expect(timeline[2]).toMatchObject({
      kind: 'status_walk',
      revision_id: REV_1,
      seq: 2,
      status: 'DEPLOYED',
      settled: true,
      activated: true,
      summary: 'queued 4 ms, built in 25 ms, deployed in 3.1 s',
      phases: [
        { phase: 'queued', ms: 4, outcome: 'done' },
        { phase: 'build', ms: 25, outcome: 'done' },
        { phase: 'deploy', ms: 3101, outcome: 'done' },
      ],
    });
    // A redeploy of a kept build walks again, without building.
    expect(timeline[7]).toMatchObject({ summary: 'queued 1 ms, deployed in 2 s', activated: true });
  });

  it('gives a failure a card of its own with its reason, and says it on the walk', () => {
    expect(timeline[4]).toMatchObject({
      status: 'BUILD_FAILED',
      activated: false,
      summary: 'queued 3 ms, build failed after 3 s: npm ci exited with 1',
    });
    expect(timeline[5]).toEqual({
      kind: 'failure',
      seq: 14,
      recorded_at: '2026-11-01T10:00:12.003Z',
      revision_id: REV_2,
      events: [14],
      status: 'BUILD_FAILED',
      message: 'npm ci exited with 1',
    });
  });

  it('makes the events of one request one card, naming who and the secrets it changed', () => {
    expect(timeline[3]).toEqual({
      kind: 'change',
      seq: 10,
      recorded_at: '2026-11-01T10:00:09.000Z',
      revision_id: REV_2,
      events: [10, 11],
      title: 'Configuration changed, revision created',
      actor: KEY,
      secrets_changed: ['OPENAI_API_KEY'],
    });
  });

  it('puts every event on a card, those the platform records by itself with the card before', () => {
    const covered = timeline
      .filter((card) => card.kind !== 'failure')
      .flatMap((card) => card.events)
      .sort((a, b) => a - b);
    expect(covered).toEqual(HISTORY.map((entry) => entry.seq));
    expect(timeline[0]?.events).toEqual([0, 1]);
    expect(timeline[2]?.events).toEqual([3, 4, 5, 6, 7, 8, 9]);
    expect(timeline[8]?.events).toEqual([20, 21]);
  });

  it('shows a walk still under way as where it is', () => {
    const running = timelineOf(HISTORY.slice(0, 5));
    expect(running.at(-1)).toMatchObject({
      kind: 'status_walk',
      status: 'BUILDING',
      settled: false,
      summary: 'queued 4 ms, building',
    });
  });

  it('says how a skipped walk ended, and opens a walk for statuses with no change before them', () => {
    const skipped = timelineOf(
      historyOf([
        [0, 'RevisionStatusChanged', status('AWAITING_BUILD'), REV_1],
        [7, 'RevisionStatusChanged', status('SKIPPED', `superseded by revision ${REV_2}`), REV_1],
      ]),
    );
    expect(skipped).toEqual([
      expect.objectContaining({
        kind: 'status_walk',
        events: [0, 1],
        summary: `queued 7 ms, skipped: superseded by revision ${REV_2}`,
      }),
    ]);
  });
});

describe('phasesOf', () => {
  it('counts a status asked again (a retried build) in the phase it belongs to', () => {
    const steps = [
      { status: 'BUILDING', at: 10, message: null },
      { status: 'AWAITING_BUILD', at: 20, message: null },
      { status: 'BUILDING', at: 25, message: null },
      { status: 'AWAITING_DEPLOY', at: 45, message: null },
      { status: 'DEPLOYING', at: 45, message: null },
      { status: 'DEPLOY_FAILED', at: 60, message: 'no port' },
    ];
    expect(phasesOf(0, steps)).toEqual([
      { phase: 'queued', ms: 10, outcome: 'done' },
      { phase: 'build', ms: 10, outcome: 'done' },
      { phase: 'queued', ms: 5, outcome: 'done' },
      { phase: 'build', ms: 20, outcome: 'done' },
      { phase: 'deploy', ms: 15, outcome: 'failed' },
    ]);
  });
});

describe('durationText', () => {
  it.each([
    [0, '0 ms'],
    [25, '25 ms'],
    [3101, '3.1 s'],
    [42_400, '42 s'],
    [125_000, '2 min 5 s'],
  ])('%d ms reads %s', (ms, text) => {
    expect(durationText(ms)).toBe(text);
  });
});
