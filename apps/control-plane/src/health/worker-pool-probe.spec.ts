import { describe, expect, it } from '@jest/globals';
import { stuckPool, withWorkerPool, WorkerPoolProbe } from './worker-pool-probe.js';

describe("/ok's probe of the thread pool", () => {
  it('answers ok while the pool answers', async () => {
    const probe = new WorkerPoolProbe(() => Promise.resolve());
    expect(await probe.check()).toEqual({ ok: true });
  });

  it('says the pool is stuck when its call does not come back, and does not pile calls up', async () => {
    let calls = 0;
    let release: () => void = () => undefined;
    const probe = new WorkerPoolProbe(() => {
      calls += 1;
      return new Promise<void>((resolve) => {
        release = resolve;
      });
    }, 20);
    expect(await probe.check()).toMatchObject({ ok: false, detail: expect.stringMatching(/held/) });
    expect(await probe.check()).toMatchObject({ ok: false });
    expect(calls).toBe(1);
    release();
    await new Promise((resolve) => setImmediate(resolve));
    expect(await probe.check()).toMatchObject({ ok: false });
    expect(calls).toBe(2);
  });

  it('makes a healthy process unhealthy, and adds to what else fails', () => {
    const stuck = stuckPool(2_000);
    expect(withWorkerPool({ ok: true }, { ok: true })).toEqual({ ok: true });
    expect(withWorkerPool({ ok: true }, stuck)).toEqual({
      ok: false,
      detail: stuck.ok ? '' : stuck.detail,
      failing: [],
    });
    const down = { ok: false as const, detail: 'the database is unavailable', failing: [] };
    expect(withWorkerPool(down, stuck)).toMatchObject({
      detail: expect.stringMatching(/held.*; the database is unavailable$/),
    });
  });
});
