import { describe, expect, it, jest } from '@jest/globals';
import { runtimeSuite } from '../../support/runtime-suite.js';

jest.setTimeout(120_000);

describe('many runs at once', () => {
  const suite = runtimeSuite('runtime_concurrent_runs', { maxRetries: 0 });

  it('runs 40 concurrent runs/wait without a listener leak warning', async () => {
    // Plain requests: the SDK's client queues its own, which would keep fewer runs in flight.
    const results = await Promise.all(
      Array.from({ length: 40 }, async () => {
        const response = await fetch(`${suite.runtime.url}/runs/wait`, {
          method: 'POST',
          headers: { 'x-api-key': suite.runtime.apiKey, 'content-type': 'application/json' },
          body: JSON.stringify({ assistant_id: 'custom', input: { steps: 3, delay_ms: 200 } }),
        });
        return (await response.json()) as { total?: number };
      }),
    );
    expect(results.map((values) => values.total)).toEqual(Array.from({ length: 40 }, () => 6));
    expect(suite.runtime.output()).not.toContain('MaxListenersExceededWarning');
  });
});
