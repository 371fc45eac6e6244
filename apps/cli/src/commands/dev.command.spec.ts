import { describe, expect, it } from '@jest/globals';
import { reloadsOnChange } from './dev.command.js';
import { UsageError } from './scripts.js';

describe('reloadsOnChange', () => {
  it('reloads by default and with --watch', () => {
    expect(reloadsOnChange({})).toBe(true);
    expect(reloadsOnChange({ watch: true })).toBe(true);
  });

  it('serves the code as it was at start with --no-reload', () => {
    expect(reloadsOnChange({ 'no-reload': true })).toBe(false);
  });

  it('refuses both flags at once', () => {
    expect(() => reloadsOnChange({ watch: true, 'no-reload': true })).toThrow(UsageError);
  });
});
