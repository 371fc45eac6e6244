/**
 * @jest-environment jsdom
 */
import type { ReactElement } from 'react';
import { render } from '../testing/render';
import { VersionDiff } from './version-diff';

async function rows(element: ReactElement): Promise<string[][]> {
  const page = await render(element);
  return [...page.querySelectorAll('tbody tr')].map((row) =>
    [...row.querySelectorAll('th, td')].map((cell) => cell.textContent),
  );
}

describe('VersionDiff', () => {
  it('shows each changed field of context and metadata with both versions side by side', async () => {
    const diff = (
      <VersionDiff
        before={{ version: 1, context: { model: 'small' }, metadata: { team: 'a' } }}
        after={{ version: 2, context: { model: 'large', tools: ['search'] }, metadata: {} }}
      />
    );
    const page = await render(diff);
    expect(page.querySelector('thead')?.textContent).toBe('FieldVersion 1Version 2');
    expect(await rows(diff)).toEqual([
      ['context.model', 'small', 'large'],
      ['context.tools', '—', '["search"]'],
      ['metadata', '—', '{}'],
      ['metadata.team', 'a', '—'],
    ]);
  });

  it('says so when two versions do not differ', async () => {
    const same = { version: 3, context: { a: 1 }, metadata: {} };
    expect(await rows(<VersionDiff before={same} after={{ ...same, version: 4 }} />)).toEqual([
      ['No differences in context, metadata or config.'],
    ]);
  });
});
