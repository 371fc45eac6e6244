import { describe, expect, it } from '@jest/globals';
import { ApiError } from '#libs/control-plane-client';
import { ConfigError } from '#libs/config';
import { KubeApiError } from '../kube/kube-api-error.js';
import { isMomentary, RevisionFailure } from './failures.js';
import { retrying } from './retrying.js';

const delays = { first: 1, longest: 4 };

/** Work that fails with each of `failures` in turn, then answers `done`. */
function failingWith(failures: Error[]): () => Promise<string> {
  return () => {
    const failure = failures.shift();
    return failure === undefined ? Promise.resolve('done') : Promise.reject(failure);
  };
}

describe('isMomentary', () => {
  it.each([
    ['no answer from the control plane', new ApiError(0, 'ECONNREFUSED')],
    ['a server error', new ApiError(503, 'starting')],
    ['throttling', new ApiError(429, 'slow down')],
    ['a Kubernetes conflict', new KubeApiError(409, 'conflict')],
    ['a Kubernetes server error', new KubeApiError(500, 'etcd')],
    ['an API server that does not answer', new Error('connect ECONNREFUSED')],
  ])('tries again after %s', (_, error) => {
    expect(isMomentary(error)).toBe(true);
  });

  it.each([
    ['a refused report', new ApiError(409, 'the revision moved on')],
    ['a revoked key', new ApiError(401, 'Invalid API key')],
    ['a forbidden object', new KubeApiError(403, 'forbidden')],
    ["a revision's own failure", new RevisionFailure('no image')],
    ['a setting to mend', new ConfigError('no key pair')],
  ])('gives up at once on %s', (_, error) => {
    expect(isMomentary(error)).toBe(false);
  });
});

describe('retrying', () => {
  it('tries again after each momentary failure, waiting twice as long each time up to the longest', async () => {
    const waits: number[] = [];
    const work = failingWith([
      new ApiError(0, 'a'),
      new ApiError(503, 'b'),
      new Error('c'),
      new Error('d'),
    ]);
    const result = await retrying(work, {
      delays,
      signal: new AbortController().signal,
      onRetry: (_, wait) => waits.push(wait),
    });
    expect(result).toBe('done');
    expect(waits).toEqual([1, 2, 4, 4]);
  });

  it('throws a failure for good at once', async () => {
    const refused = new ApiError(401, 'Invalid API key');
    const waits: number[] = [];
    await expect(
      retrying(failingWith([new Error('moment'), refused]), {
        delays,
        signal: new AbortController().signal,
        onRetry: (_, wait) => waits.push(wait),
      }),
    ).rejects.toBe(refused);
    expect(waits).toEqual([1]);
  });

  it('stops when its signal aborts', async () => {
    const stopped = new AbortController();
    const attempts: number[] = [];
    const work = () => {
      attempts.push(attempts.length);
      stopped.abort();
      return Promise.reject(new Error('moment'));
    };
    await expect(
      retrying(work, { delays, signal: stopped.signal, onRetry: () => undefined }),
    ).rejects.toThrow('moment');
    expect(attempts).toEqual([0]);
  });
});
