import { describe, expect, it } from '@jest/globals';
import { jsonInputIssues, MAX_JSON_DEPTH } from './json-input.js';

function nested(depth: number): unknown {
  let value: unknown = 'leaf';
  for (let level = 0; level < depth; level++) value = level % 2 ? [value] : { a: value };
  return value;
}

describe('jsonInputIssues', () => {
  it('accepts ordinary JSON, paired surrogates (emoji) included', () => {
    expect(jsonInputIssues({ name: 'Ann 😀', tags: ['a', 1, null, true] }, ['body'])).toEqual([]);
  });

  it('names every string and key PostgreSQL cannot store, by its place', () => {
    const issues = jsonInputIssues(
      { name: 'a\u0000b', list: ['ok', '\ud800'], ['k\u0000']: 1, tail: 'x\udc00' },
      ['body'],
    );
    expect(issues.map((issue) => issue.loc)).toEqual(
      expect.arrayContaining([
        ['body', 'name'],
        ['body', 'list', 1],
        ['body', 'k\u0000'],
        ['body', 'tail'],
      ]),
    );
    expect(issues).toHaveLength(4);
    expect(issues.every((issue) => issue.type === 'string_unicode')).toBe(true);
  });

  it(`allows ${MAX_JSON_DEPTH} levels and refuses one more, without recursing`, () => {
    expect(jsonInputIssues(nested(MAX_JSON_DEPTH), ['body'])).toEqual([]);
    const [issue, ...more] = jsonInputIssues(nested(MAX_JSON_DEPTH + 1), ['body']);
    expect(issue?.type).toBe('json_depth');
    expect(more).toEqual([]);
    expect(jsonInputIssues(nested(100_000), ['body'])[0]?.type).toBe('json_depth');
  });

  it('checks query strings and path parameters under their own location', () => {
    expect(jsonInputIssues({ id: '\u0000' }, ['path'])).toEqual([
      {
        loc: ['path', 'id'],
        msg: expect.stringContaining('NUL') as unknown,
        type: 'string_unicode',
      },
    ]);
  });
});
