import { describe, expect, it } from '@jest/globals';
import { parseUiSection } from './ui-section.js';

const fail = (problem: string): never => {
  throw new Error(problem);
};

describe('the ui and ui_config sections of langgraph.json', () => {
  it('reads each agent with its component file against the directory, and the shared packages', () => {
    const warnings: string[] = [];
    const ui = parseUiSection(
      { 'agent-alias': './agent/ui.tsx', other: 'src/other.tsx' },
      { shared: ['clsx'], tailwind: true },
      '/srv/app',
      fail,
      (warning) => warnings.push(warning),
    );
    expect([...(ui?.components ?? [])]).toEqual([
      ['agent-alias', '/srv/app/agent/ui.tsx'],
      ['other', '/srv/app/src/other.tsx'],
    ]);
    expect(ui?.shared).toEqual(['clsx']);
    expect(warnings).toEqual(['"ui_config.tailwind" is not a key Berth knows: it is ignored']);
  });

  it('has nothing without ui, and says so when ui_config is given alone', () => {
    const warnings: string[] = [];
    expect(parseUiSection(undefined, undefined, '/a', fail, () => undefined)).toBeUndefined();
    expect(
      parseUiSection(null, { shared: [] }, '/a', fail, (w) => warnings.push(w)),
    ).toBeUndefined();
    expect(warnings).toEqual([
      '"ui_config" is given without "ui": there is no component to bundle',
    ]);
  });

  it.each([
    [['./ui.tsx'], undefined, /"ui" must be an object/],
    [{ agent: 3 }, undefined, /"ui.agent" must be the path of a component file/],
    [{ agent: '' }, undefined, /"ui.agent" must be the path/],
    [{ '': './ui.tsx' }, undefined, /empty agent name/],
    [{ agent: './ui.tsx' }, 'shared', /"ui_config" must be an object/],
    [{ agent: './ui.tsx' }, { shared: 'clsx' }, /"ui_config.shared" must be an array/],
    [{ agent: './ui.tsx' }, { shared: [''] }, /"ui_config.shared" must be an array/],
  ])('refuses ui %j with ui_config %j', (ui, config, problem) => {
    expect(() => parseUiSection(ui, config, '/a', fail, () => undefined)).toThrow(problem);
  });
});
