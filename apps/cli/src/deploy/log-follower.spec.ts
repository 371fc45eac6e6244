import { describe, expect, it } from '@jest/globals';
import { ApiError } from '#libs/control-plane-client';
import { isAfterLine, isOutage, outageReason } from './log-follower.js';

describe('isAfterLine', () => {
  it("orders a revision's lines by stream position, then index", () => {
    expect(isAfterLine('0.0', undefined)).toBe(true);
    expect(isAfterLine('3.1', '3.0')).toBe(true);
    expect(isAfterLine('10.0', '9.7')).toBe(true);
    expect(isAfterLine('3.0', '3.0')).toBe(false);
    expect(isAfterLine('2.9', '3.0')).toBe(false);
    expect(isAfterLine('9.7', '10.0')).toBe(false);
  });
});

describe('isOutage and outageReason', () => {
  it('take an unreachable or failing platform for an outage, in a few words', () => {
    const refused = new ApiError(
      0,
      'cannot reach the control plane at http://127.0.0.1:8080 (ECONNREFUSED)',
    );
    const reset = new TypeError('terminated', { cause: { code: 'UND_ERR_SOCKET' } });
    const unavailable = new ApiError(503, '503 the database is unavailable');
    for (const error of [refused, reset, unavailable]) expect(isOutage(error)).toBe(true);
    expect(outageReason(refused)).toBe('ECONNREFUSED');
    expect(outageReason(reset)).toBe('UND_ERR_SOCKET');
    expect(outageReason(unavailable)).toBe('503 the database is unavailable');
  });

  it('give up on an answer that will not change: gone, refused, malformed', () => {
    expect(isOutage(new ApiError(404, '404 Deployment not found'))).toBe(false);
    expect(isOutage(new ApiError(401, 'the control plane refused the API key'))).toBe(false);
    expect(isOutage(new SyntaxError('Unexpected token'))).toBe(false);
  });
});
