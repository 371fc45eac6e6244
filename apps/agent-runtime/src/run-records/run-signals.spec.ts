import { describe, expect, it } from '@jest/globals';
import { initialRunLifecycle } from './run.decider.js';
import type { RunProgress } from './run-progress.js';
import { RunSignals } from './run-signals.js';

const progress: RunProgress = {
  position: 1,
  nextSeq: 1,
  lifecycle: initialRunLifecycle,
  requestId: 'req-1',
};

describe('RunSignals', () => {
  it('wakes the workers and hands them, once, where a run recorded here stands', () => {
    const signals = new RunSignals();
    let woken = 0;
    signals.onWake(() => {
      woken += 1;
    });

    signals.wakeWorkers({ runId: 'r1', progress });

    expect(woken).toBe(1);
    expect(signals.takeRecorded('r1')).toBe(progress);
    expect(signals.takeRecorded('r1')).toBeUndefined();
  });

  it('keeps nothing in a process whose workers do not listen', () => {
    const signals = new RunSignals();

    signals.wakeWorkers({ runId: 'r1', progress });

    expect(signals.takeRecorded('r1')).toBeUndefined();
  });

  it('drops the oldest runs past a thousand, those another process started', () => {
    const signals = new RunSignals();
    signals.onWake(() => undefined);

    for (let index = 0; index <= 1_000; index += 1) {
      signals.wakeWorkers({ runId: `r${index}`, progress });
    }

    expect(signals.takeRecorded('r0')).toBeUndefined();
    expect(signals.takeRecorded('r1')).toBe(progress);
    expect(signals.takeRecorded('r1000')).toBe(progress);
  });
});
