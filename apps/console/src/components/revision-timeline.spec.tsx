/**
 * @jest-environment jsdom
 */
import { timelineOf } from '../domain/history';
import { deploymentHistory, deploymentTimeline } from '../testing/history-fixture';
import { render } from '../testing/render';
import { RevisionTimeline } from './revision-timeline';

describe('RevisionTimeline', () => {
  let page: HTMLElement;
  let cards: HTMLElement[] = [];
  beforeAll(async () => {
    page = await render(
      <RevisionTimeline cards={deploymentTimeline()} items={timelineOf(deploymentHistory())} />,
    );
    cards = [...page.querySelectorAll<HTMLElement>('li.timeline-card')];
  });

  it('shows a card per change a person made, a line per walk and a card per failure, newest first', () => {
    expect(cards.map((card) => card.dataset.kind)).toEqual([
      'status_walk',
      'change',
      'failure',
      'status_walk',
      'change',
      'status_walk',
      'change',
      'change',
    ]);
    expect(cards[7]?.querySelector('time')?.getAttribute('datetime')).toBe(
      '2026-11-01T10:00:00.000Z',
    );
  });

  it("says a revision's walk on one line, its status events one click away", () => {
    const walk = cards[5];
    expect(walk?.querySelector('.timeline-walk')?.textContent).toBe('queued 4 s, built in 4 s');
    expect(walk?.querySelector('.timeline-head .badge')?.textContent).toBe('DEPLOYED');
    expect(walk?.querySelector('.timeline-head strong')?.textContent).toBe('Revision went live');
    const events = walk?.querySelector('details.timeline-events');
    expect(events?.hasAttribute('open')).toBe(false);
    expect(events?.querySelector('summary')?.textContent).toBe('3 events');
    expect(
      [...(events?.querySelectorAll('li.timeline-item') ?? [])].map((item) =>
        item.getAttribute('data-event'),
      ),
    ).toEqual(['RevisionActivated', 'RevisionStatusChanged', 'RevisionStatusChanged']);
  });

  it("heads a PATCH's card with what changed and who, its source's location only in its events", () => {
    const patch = cards[4];
    const head = [...(patch?.children ?? [])].filter((child) => child.tagName !== 'DETAILS');
    const headText = head.map((child) => child.textContent).join(' ');
    expect(headText).toContain('by API key key_0123abcd');
    expect(patch?.querySelector('.timeline-changes del')?.textContent).toBe('langgraph.json');
    expect(patch?.querySelector('.timeline-changes ins')?.textContent).toBe('app/langgraph.json');
    expect(patch?.querySelector('.timeline-source')?.textContent).toBe('New source uploaded');
    expect(patch?.querySelector('.timeline-secrets')?.textContent).toBe(
      'Secrets set: OPENAI_API_KEY',
    );
    expect(headText).not.toContain('source_tarball');
    expect(patch?.querySelector('details.timeline-events')?.textContent).toContain(
      'source_revision_config.source_tarball_path',
    );
  });

  it('gives a failure its card, with its status and reason', () => {
    const failed = cards[2];
    expect(failed?.querySelector('.badge')?.textContent).toBe('BUILD_FAILED');
    expect(failed?.querySelector('.timeline-message')?.textContent).toBe('npm ci exited with 1');
    expect(cards[3]?.querySelector('.timeline-walk')?.textContent).toBe(
      'build failed after 4 s: npm ci exited with 1',
    );
  });

  it('names the local listener in the events, never by its id', () => {
    expect(page.textContent).not.toContain('listener 6c6f6361');
    expect(page.textContent).toContain('by the local listener');
  });
});
