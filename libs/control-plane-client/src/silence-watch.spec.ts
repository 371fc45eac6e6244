import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { SilenceWatch } from './silence-watch.js';

describe('SilenceWatch', () => {
  beforeEach(() => {
    jest.useFakeTimers();
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  it('aborts after a silence as long as it was given, saying so', () => {
    const watch = new SilenceWatch(30_000);
    jest.advanceTimersByTime(29_999);
    expect(watch.signal.aborted).toBe(false);
    jest.advanceTimersByTime(1);
    expect(watch.signal.aborted).toBe(true);
    expect(watch.signal.reason).toMatchObject({
      name: 'TimeoutError',
      message: 'no answer in 30 s',
    });
  });

  it('starts the silence again at each thing heard, and never aborts once stopped', async () => {
    const watch = new SilenceWatch(30_000);
    const writer = new WritableStream<string>();
    const piped = new ReadableStream<string>({
      start(controller) {
        controller.enqueue('heartbeat');
        controller.close();
      },
    })
      .pipeThrough(watch.listener())
      .pipeTo(writer);
    jest.advanceTimersByTime(20_000);
    await piped;
    jest.advanceTimersByTime(20_000);
    watch.heard();
    jest.advanceTimersByTime(29_000);
    expect(watch.signal.aborted).toBe(false);
    watch.stop();
    jest.advanceTimersByTime(60_000);
    expect(watch.signal.aborted).toBe(false);
  });
});
