/**
 * @jest-environment jsdom
 */
import { timelineOf } from '../domain/history';
import { deploymentHistory } from '../testing/history-fixture';
import { render } from '../testing/render';
import { RevisionTimeline } from './revision-timeline';

describe('RevisionTimeline', () => {
  let items: Element[] = [];
  beforeAll(async () => {
    const page = await render(<RevisionTimeline items={timelineOf(deploymentHistory())} />);
    items = [...page.querySelectorAll('li.timeline-item')];
  });

  it('lists every event, newest first, with its time', () => {
    expect(items).toHaveLength(10);
    expect(items.map((item) => item.getAttribute('data-event'))).toEqual([
      'DeploymentDeleted',
      'RevisionActivated',
      'RevisionRedeployRequested',
      'RevisionStatusChanged',
      'RevisionCreated',
      'RevisionActivated',
      'RevisionStatusChanged',
      'RevisionStatusChanged',
      'RevisionCreated',
      'DeploymentCreated',
    ]);
    expect(items[9]?.querySelector('time')?.getAttribute('datetime')).toBe(
      '2026-11-01T10:00:00.000Z',
    );
  });

  it("shows a PATCH's changed field with before and after, and its secret by name", () => {
    const patch = items[4];
    expect(patch?.textContent).toContain('by API key key_0123abcd');
    expect(patch?.querySelector('del')?.textContent).toBe('langgraph.json');
    expect(patch?.querySelector('ins')?.textContent).toBe('app/langgraph.json');
    expect(patch?.querySelector('.timeline-secrets')?.textContent).toBe(
      'Secrets set: OPENAI_API_KEY',
    );
  });

  it('shows a status transition with its badge and message', () => {
    const failed = items[3];
    expect(failed?.querySelector('.badge')?.textContent).toBe('BUILD_FAILED');
    expect(failed?.querySelector('.timeline-message')?.textContent).toBe('npm ci exited with 1');
  });

  it('groups runs of events about one revision, the newest open, and names the local listener', async () => {
    const page = await render(<RevisionTimeline items={timelineOf(deploymentHistory())} />);
    const groups = [...page.querySelectorAll('li.timeline-group')];
    expect(groups.map((group) => group.querySelectorAll('li.timeline-item').length)).toEqual([
      3, 2, 5,
    ]);
    expect(groups.map((group) => group.querySelector('details')?.open)).toEqual([
      true,
      false,
      false,
    ]);
    expect(groups[1]?.querySelector('summary')?.textContent).toContain('BUILD_FAILED');
    expect(page.textContent).not.toContain('listener 6c6f6361');
    expect(page.textContent).toContain('by the local listener');
  });
});
