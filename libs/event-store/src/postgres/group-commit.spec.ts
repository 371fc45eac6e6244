import { describe, expect, it } from '@jest/globals';
import { GroupCommit, type AppendRequest } from './group-commit.js';

const request = (stream: string): AppendRequest => ({ stream, expected: -2, events: '[]' });

function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve: (value: T) => void = () => undefined;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

describe('GroupCommit', () => {
  it('commits the appends asked in one turn together, each with its own outcome', async () => {
    const groups: string[][] = [];
    const commit = new GroupCommit<string>(
      (group) => {
        groups.push(group.map((one) => one.stream));
        return Promise.resolve(group.map((one) => `ok:${one.stream}`));
      },
      { maxInFlight: 4, maxGroup: 32 },
    );

    const outcomes = await Promise.all(['a', 'b', 'c'].map((s) => commit.submit(request(s))));

    expect(groups).toEqual([['a', 'b', 'c']]);
    expect(outcomes).toEqual(['ok:a', 'ok:b', 'ok:c']);
  });

  it('gathers what is asked while the groups in flight are full into the next group', async () => {
    const groups: string[][] = [];
    const first = deferred<undefined>();
    const commit = new GroupCommit<string>(
      async (group) => {
        groups.push(group.map((one) => one.stream));
        if (groups.length === 1) await first.promise;
        return group.map((one) => one.stream);
      },
      { maxInFlight: 1, maxGroup: 2 },
    );

    const a = commit.submit(request('a'));
    await new Promise((resolve) => setImmediate(resolve));
    const later = ['b', 'c', 'd'].map((s) => commit.submit(request(s)));
    await new Promise((resolve) => setImmediate(resolve));
    expect(groups).toEqual([['a']]);
    first.resolve(undefined);

    await expect(Promise.all([a, ...later])).resolves.toEqual(['a', 'b', 'c', 'd']);
    expect(groups).toEqual([['a'], ['b', 'c'], ['d']]);
  });

  it('fails every append of a group whose commit failed, and goes on with the next', async () => {
    let calls = 0;
    const commit = new GroupCommit<string>(
      (group) => {
        calls += 1;
        if (calls === 1) return Promise.reject(new Error('connection lost'));
        return Promise.resolve(group.map((one) => one.stream));
      },
      { maxInFlight: 1, maxGroup: 32 },
    );

    const failed = Promise.allSettled(['a', 'b'].map((s) => commit.submit(request(s))));
    const settled = await failed;
    const next = await commit.submit(request('c'));

    expect(settled.map((one) => one.status)).toEqual(['rejected', 'rejected']);
    expect(next).toBe('c');
  });
});
