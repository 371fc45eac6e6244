import { describe, expect, it } from '@jest/globals';
import { TrailingWrites } from './trailing-writes.js';

/** An append whose end the test decides. */
function appendInFlight() {
  let done: () => void = () => undefined;
  let fail: (error: Error) => void = () => undefined;
  const appended = new Promise<void>((resolve, reject) => {
    done = resolve;
    fail = reject;
  });
  return { appended, done, fail };
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('TrailingWrites', () => {
  it('tracks nothing for a thread that does not trail: its writer waits', () => {
    const trailing = new TrailingWrites();
    expect(trailing.track('t1', Promise.resolve())).toBe(false);
  });

  it('lets the writer go on, and ends the run only once every append is written', async () => {
    const trailing = new TrailingWrites();
    const first = appendInFlight();
    const second = appendInFlight();
    let ended = false;
    const run = trailing
      .run('t1', () => {
        expect(trailing.track('t1', first.appended)).toBe(true);
        expect(trailing.track('t1', second.appended)).toBe(true);
        expect(trailing.track('other', Promise.resolve())).toBe(false);
        return Promise.resolve('result');
      })
      .then((result) => {
        ended = true;
        return result;
      });
    first.done();
    await turn();
    expect(ended).toBe(false);
    second.done();
    expect(await run).toBe('result');
    expect(trailing.track('t1', Promise.resolve())).toBe(false);
  });

  it('fails the run when an append failed, though the work succeeded', async () => {
    const trailing = new TrailingWrites();
    const append = appendInFlight();
    const run = trailing.run('t1', () => {
      trailing.track('t1', append.appended);
      return Promise.resolve();
    });
    append.fail(new Error('connection lost'));
    await expect(run).rejects.toThrow('connection lost');
  });

  it("gives the work's own failure, once its appends have settled", async () => {
    const trailing = new TrailingWrites();
    const append = appendInFlight();
    let settled = false;
    const run = trailing.run('t1', () => {
      trailing.track('t1', append.appended);
      return Promise.reject(new Error('cancelled'));
    });
    void run.catch(() => {
      settled = true;
    });
    await turn();
    expect(settled).toBe(false);
    append.fail(new Error('connection lost'));
    await expect(run).rejects.toThrow('cancelled');
  });

  it("makes a read of the thread wait for what is queued, and not for other threads' writes", async () => {
    const trailing = new TrailingWrites();
    const append = appendInFlight();
    let work: () => void = () => undefined;
    const run = trailing.run(
      't1',
      () =>
        new Promise<void>((resolve) => {
          trailing.track('t1', append.appended);
          work = resolve;
        }),
    );
    await trailing.settled('t2');
    let read = false;
    const reading = trailing.settled('t1').then(() => {
      read = true;
    });
    await turn();
    expect(read).toBe(false);
    append.done();
    await reading;
    work();
    await run;
  });
});
