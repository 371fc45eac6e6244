/**
 * @jest-environment jsdom
 */
import { render } from '../testing/render';
import { DiffViewer } from './diff-viewer';

describe('DiffViewer', () => {
  it('shows each line of the diff as it is, marked added, removed or kept', async () => {
    const diff =
      '--- a/src/helper.ts\n+++ b/src/helper.ts\n@@ -1,2 +1,2 @@\n' +
      ' export const greeting = "hello";\n-export const answer = 41;\n+export const answer = 42;\n';
    const page = await render(<DiffViewer path="src/helper.ts" diff={diff} />);
    const view = page.querySelector('pre.diff-view');
    expect(view?.getAttribute('aria-label')).toBe('Diff of src/helper.ts');
    expect(view?.textContent).toBe(diff);
    const lines = [...page.querySelectorAll('.diff-line')].map((line) => [
      line.getAttribute('data-kind'),
      line.textContent.trimEnd(),
    ]);
    expect(lines.slice(3)).toEqual([
      ['context', ' export const greeting = "hello";'],
      ['removed', '-export const answer = 41;'],
      ['added', '+export const answer = 42;'],
    ]);
    expect(page.querySelector('.diff-line-removed')?.getAttribute('title')).toBe('removed');
  });
});
