import { cannotStartLine, cannotStartReasonOf } from './cannot-start.js';

describe('cannot-start lines', () => {
  it('carry a reason of several lines on one line, and give it back', () => {
    const line = cannotStartLine('graph "a": boom\n  at somewhere');
    expect(line).not.toContain('\n');
    expect(cannotStartReasonOf(line)).toBe('graph "a": boom\n  at somewhere');
  });

  it('are told apart from other output', () => {
    expect(cannotStartReasonOf('{"level":50,"msg":"graph \\"a\\" is not served"}')).toBeUndefined();
    expect(cannotStartReasonOf('berth-cannot-start: not json')).toBeUndefined();
    expect(cannotStartReasonOf('berth-cannot-start: 42')).toBeUndefined();
  });
});
