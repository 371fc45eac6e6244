import { describe, expect, it } from '@jest/globals';
import { createServerLogger, logLevelOf, registerServerLogger } from './server-logger.js';

describe('the server logger given to applications', () => {
  const capture = (): { lines: [string, boolean][]; write: (line: string, e: boolean) => void } => {
    const lines: [string, boolean][] = [];
    return { lines, write: (line, toErrors) => lines.push([line, toErrors]) };
  };

  it('writes at and above its level, errors and warnings to stderr, with meta and child meta', () => {
    const { lines, write } = capture();
    const logger = createServerLogger('info', write);
    logger.info('graph loaded', { graph_id: 'agent' });
    logger.debug('not shown');
    logger.child({ node: 'plan' }).warn('slow', { ms: 12 });
    logger.error(new Error('boom'));
    expect(lines).toEqual([
      ['info: graph loaded {"graph_id":"agent"}', false],
      ['warn: slow {"node":"plan","ms":12}', true],
      [expect.stringMatching(/^error: Error: boom/), true],
    ]);
    expect(logger.isLevelEnabled('debug')).toBe(false);
  });

  it('takes LOG_LEVEL in any case, and info for anything else', () => {
    expect(logLevelOf('DEBUG')).toBe('debug');
    expect(logLevelOf(undefined)).toBe('info');
    expect(logLevelOf('loud')).toBe('info');
  });

  it("is what the SDK's getLogger() returns", async () => {
    const logger = createServerLogger('info', () => undefined);
    registerServerLogger(logger);
    const { getLogger } = await import('@langchain/langgraph-sdk/logging');
    expect(getLogger()).toBe(logger);
  });
});
