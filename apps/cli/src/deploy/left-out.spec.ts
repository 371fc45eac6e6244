import { describe, expect, it } from '@jest/globals';
import { describeLeftOut } from './left-out.js';

describe('describeLeftOut', () => {
  it('says once per reason what was left out', () => {
    expect(
      describeLeftOut([
        { path: '.berth/', reason: "Berth's own data" },
        { path: '.env', reason: 'secrets' },
        { path: 'sub/.berth/', reason: "Berth's own data" },
      ]),
    ).toEqual(["Left out .berth/, sub/.berth/ (Berth's own data)", 'Left out .env (secrets)']);
  });

  it('says nothing when nothing was left out', () => {
    expect(describeLeftOut([])).toEqual([]);
  });
});
