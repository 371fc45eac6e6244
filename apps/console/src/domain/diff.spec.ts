import { diffValues, flatten, shortJson } from './diff';

describe('diffValues', () => {
  it('reports added, removed and changed leaves by dotted path, in path order', () => {
    expect(
      diffValues(
        { context: { model: 'a', temperature: 0 }, metadata: { owner: 'x' } },
        { context: { model: 'b', tools: ['search'] }, metadata: { owner: 'x' } },
      ),
    ).toEqual([
      { path: 'context.model', kind: 'changed', before: 'a', after: 'b' },
      { path: 'context.temperature', kind: 'removed', before: 0 },
      { path: 'context.tools', kind: 'added', after: ['search'] },
    ]);
  });

  it('finds nothing between equal values', () => {
    expect(diffValues({ a: { b: [1, 2] } }, { a: { b: [1, 2] } })).toEqual([]);
  });

  it('treats arrays and empty objects as leaves', () => {
    expect([...flatten({ a: [], b: {}, c: { d: null } })]).toEqual([
      ['a', []],
      ['b', {}],
      ['c.d', null],
    ]);
    expect(diffValues({ a: [1] }, { a: [1, 2] })).toEqual([
      { path: 'a', kind: 'changed', before: [1], after: [1, 2] },
    ]);
  });

  it('prints values on one line', () => {
    expect(shortJson('text')).toBe('text');
    expect(shortJson({ a: 1 })).toBe('{"a":1}');
    expect(shortJson(undefined)).toBe('undefined');
  });
});
