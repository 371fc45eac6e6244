import { describe, expect, it } from '@jest/globals';
import { inModes } from './stream-mode-filter.js';

describe('inModes', () => {
  it.each([
    ['values', ['values'], true],
    ['updates|research:1', ['updates'], true],
    ['messages/partial', ['messages'], true],
    ['messages', ['messages-tuple'], true],
    ['custom', ['values'], false],
    ['metadata', ['custom'], true],
    ['error', [], true],
    ['end', ['values'], true],
    ['values', ['values-ish'], false],
  ])('%s in %j: %s', (event, modes, kept) => {
    expect(inModes(event, modes)).toBe(kept);
  });
});
