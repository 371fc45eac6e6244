import { describe, expect, it } from '@jest/globals';
import { readLogLine } from './structured-line.js';

describe('readLogLine', () => {
  it('shows a structured line as its level and message, with its request id', () => {
    const line = JSON.stringify({
      level: 'warn',
      time: '2026-11-24T10:00:00.000Z',
      msg: 'slow run',
      request_id: 'r-1',
    });
    expect(readLogLine(line, 'INFO')).toEqual({ level: 'WARN', message: 'slow run [r-1]' });
  });

  it('leaves any other line as it is, at INFO', () => {
    for (const line of [
      'npm install',
      '{not json',
      '{"level":30,"msg":"pino numbers"}',
      '{"a":1}',
    ]) {
      expect(readLogLine(line, 'INFO')).toEqual({ level: 'INFO', message: line });
    }
  });

  it("says a request line's method, path, status and time", () => {
    const line = JSON.stringify({
      level: 'info',
      msg: 'request answered',
      request_id: 'req-7',
      method: 'POST',
      path: '/threads',
      route: '/threads',
      status: 200,
      ms: 3.2,
    });
    expect(readLogLine(line, 'INFO')).toEqual({
      level: 'INFO',
      message: 'request answered: POST /threads 200 in 3.2 ms [req-7]',
    });
  });
});
