import { Histogram } from 'prom-client';
import { metricsRegistry } from '#libs/metrics';

const STEP_BUCKETS = [0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300, 600, 1200];

const buildDuration = new Histogram({
  name: 'berth_build_duration_seconds',
  help: "A revision's build (fetch, install, build command), by outcome",
  labelNames: ['outcome'],
  buckets: STEP_BUCKETS,
  registers: [metricsRegistry],
});

const deployDuration = new Histogram({
  name: 'berth_deploy_duration_seconds',
  help: "A revision's deploy, from starting its runtime to its first answer, by outcome",
  labelNames: ['outcome'],
  buckets: STEP_BUCKETS,
  registers: [metricsRegistry],
});

export type StepOutcome = 'success' | 'failure';

function timer(histogram: Histogram<'outcome'>): (outcome: StepOutcome) => void {
  const end = histogram.startTimer();
  return (outcome) => {
    end({ outcome });
  };
}

/** Starts timing a build; the returned function records it with how it ended. */
export const timeBuild = (): ((outcome: StepOutcome) => void) => timer(buildDuration);

/** Starts timing a deploy; the returned function records it with how it ended. */
export const timeDeploy = (): ((outcome: StepOutcome) => void) => timer(deployDuration);
