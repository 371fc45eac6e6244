import { deploymentHistory, deploymentTimeline } from '../testing/history-fixture';
import {
  actorLabel,
  cardDetails,
  isSettled,
  liveRevisionAt,
  newestFirst,
  timelineOf,
} from './history';

describe('timelineOf', () => {
  const items = timelineOf(deploymentHistory());

  it('names who acted: an API key by its fingerprint, the listener, a git push', () => {
    expect(items[0]?.actor).toBe('API key key_0123abcd');
    expect(items[2]?.actor).toBe('the local listener');
    expect(
      actorLabel({ kind: 'listener', listener_id: '01a2b3c4-0000-7000-8000-00000000abcd' }),
    ).toBe('listener 01a2b3c4…abcd');
    expect(actorLabel({ kind: 'git_host', integration_id: 'int-9' })).toBe(
      'git push (integration int-9)',
    );
    expect(actorLabel(null)).toBe('unknown');
  });

  it("shows a revision's configuration as what differs from the revision before it", () => {
    const second = items[5];
    expect(second?.title).toBe('Revision created');
    expect(second?.changes).toEqual([
      {
        path: 'source_revision_config.graph_config_path',
        kind: 'changed',
        before: 'langgraph.json',
        after: 'app/langgraph.json',
      },
      {
        path: 'source_revision_config.source_tarball_path',
        kind: 'changed',
        before: 'uploads/a.tgz',
        after: 'uploads/b.tgz',
      },
    ]);
  });

  it('shows the first revision with every field it set, and no unset ones', () => {
    expect(items[1]?.changes.map((change) => change.path)).toEqual([
      'source_revision_config.graph_config_path',
      'source_revision_config.source_tarball_path',
    ]);
  });

  it('names the secrets a revision changed, and keeps bookkeeping out of the changes', () => {
    expect(items[5]?.secretNames).toEqual(['OPENAI_API_KEY']);
    const paths = items.flatMap((item) => item.changes.map((change) => change.path));
    expect(paths).not.toContain('secrets');
    expect(paths).not.toContain('secrets_changed');
    expect(paths).not.toContain('at');
    expect(paths).not.toContain('tenant_id');
  });

  it('carries status transitions and their messages', () => {
    expect(items[6]).toMatchObject({ status: 'BUILD_FAILED', message: 'npm ci exited with 1' });
    expect(items[3]).toMatchObject({ status: 'DEPLOYED', message: null });
  });
});

describe('liveRevisionAt', () => {
  const history = deploymentHistory();
  it.each([
    ['2026-11-01T09:00:00.000Z', null],
    ['2026-11-01T10:00:08.999Z', null],
    ['2026-11-01T10:00:09.000Z', 'rev-1'],
    ['2026-11-02T08:30:00.000Z', 'rev-1'],
    ['2026-11-02T09:00:06.000Z', 'rev-1'],
    ['2026-11-03T00:00:01.000Z', null],
  ])('at %s the live revision is %s', (moment, expected) => {
    expect(liveRevisionAt(history, new Date(moment))).toBe(expected);
  });
});

describe('isSettled', () => {
  it('settles on final statuses only', () => {
    expect(isSettled('DEPLOYED')).toBe(true);
    expect(isSettled('BUILD_FAILED')).toBe(true);
    expect(isSettled('BUILDING')).toBe(false);
    expect(isSettled('QUEUED')).toBe(false);
  });
});

describe('cardDetails', () => {
  const items = timelineOf(deploymentHistory());
  const cards = deploymentTimeline();
  const card = (index: number) => {
    const found = cards[index];
    if (!found) throw new Error(`no card ${index}`);
    return found;
  };

  it("opens a card on its events, newest first, and heads it without its source's location", () => {
    const patch = cardDetails(card(3), items);
    expect(patch.items.map((item) => item.entry.seq)).toEqual([5]);
    expect(patch.changes.map((change) => change.path)).toEqual([
      'source_revision_config.graph_config_path',
    ]);
    expect(patch.newSource).toBe(true);
  });

  it('gives a walk its events and no changes of its own', () => {
    const walk = cardDetails(card(2), items);
    expect(walk.items.map((item) => item.entry.event)).toEqual([
      'RevisionActivated',
      'RevisionStatusChanged',
      'RevisionStatusChanged',
    ]);
    expect(walk).toMatchObject({ changes: [], newSource: false });
  });

  it('shows the newest card first', () => {
    expect(newestFirst(cards).map((card) => card.seq)).toEqual([7, 7, 6, 5, 5, 1, 1, 0]);
  });
});
