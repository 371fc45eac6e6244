import { describe, expect, it } from '@jest/globals';
import { childLogEnvironment, logSettingsFrom } from './log-settings.js';
import { requestIdFrom } from './request-context.js';

describe('logSettingsFrom', () => {
  it('logs at info, as JSON, unless told otherwise or writing to a terminal', () => {
    expect(logSettingsFrom({}, false)).toEqual({ level: 'info', pretty: false });
    expect(logSettingsFrom({}, true)).toEqual({ level: 'info', pretty: true });
    expect(logSettingsFrom({ BERTH_LOG_PRETTY: 'true' }, false).pretty).toBe(true);
    expect(logSettingsFrom({ BERTH_LOG_LEVEL: ' Debug ' }, false).level).toBe('debug');
    expect(logSettingsFrom({ BERTH_LOG_LEVEL: 'silent' }, false).level).toBe('silent');
  });

  it('writes the format asked for, BERTH_LOG_FORMAT first, whatever stdout is', () => {
    expect(logSettingsFrom({ BERTH_LOG_FORMAT: 'json' }, true).pretty).toBe(false);
    expect(logSettingsFrom({ BERTH_LOG_FORMAT: ' Pretty ' }, false).pretty).toBe(true);
    expect(logSettingsFrom({ BERTH_LOG_PRETTY: 'false' }, true).pretty).toBe(false);
    expect(
      logSettingsFrom({ BERTH_LOG_FORMAT: 'json', BERTH_LOG_PRETTY: 'true' }, true).pretty,
    ).toBe(false);
    expect(logSettingsFrom({ BERTH_LOG_FORMAT: '' }, true).pretty).toBe(true);
    expect(() => logSettingsFrom({ BERTH_LOG_FORMAT: 'yaml' }, false)).toThrow(
      'BERTH_LOG_FORMAT must be json or pretty; got "yaml"',
    );
    expect(() => logSettingsFrom({ BERTH_LOG_PRETTY: 'yes' }, false)).toThrow(
      'BERTH_LOG_PRETTY must be true or false; got "yes"',
    );
  });

  it("tells a supervised child the format asked for, else the one the supervisor's stdout calls for", () => {
    expect(childLogEnvironment({}, true)).toEqual({ BERTH_LOG_FORMAT: 'pretty' });
    expect(childLogEnvironment({}, false)).toEqual({ BERTH_LOG_FORMAT: 'json' });
    expect(childLogEnvironment({}, undefined)).toEqual({ BERTH_LOG_FORMAT: 'json' });
    expect(childLogEnvironment({ BERTH_LOG_FORMAT: 'json' }, true)).toEqual({
      BERTH_LOG_FORMAT: 'json',
    });
    expect(childLogEnvironment({ BERTH_LOG_PRETTY: 'false' }, true)).toEqual({
      BERTH_LOG_FORMAT: 'json',
    });
    expect(childLogEnvironment({ BERTH_LOG_PRETTY: 'true' }, false)).toEqual({
      BERTH_LOG_FORMAT: 'pretty',
    });
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
