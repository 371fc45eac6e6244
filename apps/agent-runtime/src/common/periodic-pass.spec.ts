import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { PeriodicPass } from './periodic-pass.js';

/** A pass that ends when the test says. */
function controlledPass(): { pass: () => Promise<void>; started: () => number; end: () => void } {
  let started = 0;
  let release: () => void = () => undefined;
  return {
    pass: () => {
      started += 1;
      return new Promise<void>((resolve) => {
        release = resolve;
      });
    },
    started: () => started,
    end: () => {
      release();
    },
  };
}

describe('PeriodicPass', () => {
  afterEach(() => {
    jest.useRealTimers();
  });

  it('makes one pass at a time: a call during a pass joins it', async () => {
    const control = controlledPass();
    const passes = new PeriodicPass(control.pass, () => undefined);
    const first = passes.run();
    const second = passes.run();
    expect(control.started()).toBe(1);
    control.end();
    await Promise.all([first, second]);
    void passes.run();
    expect(control.started()).toBe(2);
  });

  it('reports a failed pass and makes the next one anyway', async () => {
    const failures: unknown[] = [];
    let calls = 0;
    const passes = new PeriodicPass(
      () => {
        calls += 1;
        return calls === 1 ? Promise.reject(new Error('db down')) : Promise.resolve();
      },
      (error) => failures.push(error),
    );
    await passes.run();
    await passes.run();
    expect(calls).toBe(2);
    expect(failures).toEqual([new Error('db down')]);
  });

  it('passes every interval, at once when asked, and waits on stop for the pass in hand', async () => {
    jest.useFakeTimers();
    const control = controlledPass();
    const passes = new PeriodicPass(control.pass, () => undefined);
    passes.start(1_000, true);
    expect(control.started()).toBe(1);
    control.end();
    await Promise.resolve();
    await jest.advanceTimersByTimeAsync(1_000);
    expect(control.started()).toBe(2);

    let stopped = false;
    const stopping = passes.stop().then(() => {
      stopped = true;
    });
    await Promise.resolve();
    expect(stopped).toBe(false);
    control.end();
    await stopping;
    await jest.advanceTimersByTimeAsync(5_000);
    expect(control.started()).toBe(2);
  });
});
