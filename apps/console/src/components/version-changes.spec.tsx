/**
 * @jest-environment jsdom
 */
import { render } from '../testing/render';
import { VersionChanges } from './version-changes';

describe('VersionChanges', () => {
  it('lists what a version changed from the one it was made from', async () => {
    const page = await render(
      <VersionChanges
        version={{
          previous_version: 1,
          changed_by: { kind: 'user', identity: 'alice' },
          changes: [
            { field: 'context.model', change: 'modified', from: 'small', to: 'large' },
            { field: 'metadata.tier', change: 'added', to: 'gold' },
          ],
        }}
      />,
    );
    expect(page.querySelector('.version-changes-from')?.textContent).toBe('from version 1');
    expect([...page.querySelectorAll('li')].map((item) => item.textContent)).toEqual([
      'context.model: small → large',
      'metadata.tier added: gold',
    ]);
  });

  it('says a first version is one, without listing every field it set', async () => {
    const page = await render(
      <VersionChanges
        version={{
          previous_version: null,
          changes: [{ field: 'graph_id', change: 'added', to: 'agent' }],
        }}
      />,
    );
    expect(page.textContent).toBe('first version');
  });
});
