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
});
