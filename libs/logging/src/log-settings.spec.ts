import { describe, expect, it } from '@jest/globals';
import { logSettingsFrom } from './log-settings.js';
import { requestIdFrom } from './request-context.js';

describe('logSettingsFrom', () => {
  it('logs at info, as JSON, unless told otherwise or writing to a terminal', () => {
    expect(logSettingsFrom({}, false)).toEqual({ level: 'info', pretty: false });
    expect(logSettingsFrom({}, true)).toEqual({ level: 'info', pretty: true });
    expect(logSettingsFrom({ BERTH_LOG_PRETTY: 'true' }, false).pretty).toBe(true);
    expect(logSettingsFrom({ BERTH_LOG_LEVEL: ' Debug ' }, false).level).toBe('debug');
    expect(logSettingsFrom({ BERTH_LOG_LEVEL: 'silent' }, false).level).toBe('silent');
  });

  it('refuses a level it does not know, naming the ones it does', () => {
    expect(() => logSettingsFrom({ BERTH_LOG_LEVEL: 'loud' }, false)).toThrow(
      /BERTH_LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent/,
    );
  });
});

describe('requestIdFrom', () => {
  it("keeps a client's plausible id and replaces anything else", () => {
    expect(requestIdFrom('abc-123_x.y:z')).toBe('abc-123_x.y:z');
    expect(requestIdFrom(['first', 'second'])).toBe('first');
    for (const bad of [undefined, '', 'has space', 'x'.repeat(129), 'new\nline', '<script>']) {
      expect(requestIdFrom(bad)).toMatch(/^[0-9a-f-]{36}$/);
    }
  });
});
