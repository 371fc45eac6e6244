import { describe, expect, it } from '@jest/globals';
import { BuildCancellations } from './build-cancellations.js';

describe("cancelling a deployment's builds", () => {
  it("aborts that deployment's builds in progress with the reason, and no one else's", () => {
    const cancellations = new BuildCancellations();
    const first = cancellations.begin('d1');
    const second = cancellations.begin('d1');
    const other = cancellations.begin('d2');

    expect(cancellations.cancel('d1', 'the deployment is being deleted')).toBe(2);
    expect(first.signal.aborted && second.signal.aborted).toBe(true);
    expect((first.signal.reason as Error).message).toBe('the deployment is being deleted');
    expect(other.signal.aborted).toBe(false);
  });

  it('forgets a build once it ended', () => {
    const cancellations = new BuildCancellations();
    const build = cancellations.begin('d1');
    build.end();

    expect(cancellations.cancel('d1', 'deleted')).toBe(0);
    expect(build.signal.aborted).toBe(false);
  });
});
