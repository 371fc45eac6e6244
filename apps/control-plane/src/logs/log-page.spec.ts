import { describe, expect, it } from '@jest/globals';
import { logPage } from './log-page.js';
import type { LogRecord } from './revision-logs.js';

const records: LogRecord[] = [
  { id: '1.0', type: 'build', timestamp: '2026-01-01T00:00:01.000Z', message: 'npm ci' },
  { id: '1.1', type: 'build', timestamp: '2026-01-01T00:00:02.000Z', message: 'Compiling graph' },
  { id: '2.0', type: 'build', timestamp: '2026-01-01T00:00:03.000Z', message: 'done' },
];

const messages = (query: Parameters<typeof logPage>[1]): string[] =>
  logPage(records, query).logs.map((entry) => entry.message);

describe('log pages for the deploy CLI', () => {
  it('answers entries with id, timestamp, level and message, oldest first by default', () => {
    expect(logPage(records, {})).toEqual({
      logs: [
        { id: '1.0', timestamp: '2026-01-01T00:00:01.000Z', level: 'INFO', message: 'npm ci' },
        {
          id: '1.1',
          timestamp: '2026-01-01T00:00:02.000Z',
          level: 'INFO',
          message: 'Compiling graph',
        },
        { id: '2.0', timestamp: '2026-01-01T00:00:03.000Z', level: 'INFO', message: 'done' },
      ],
      next_offset: '3',
    });
  });

  it('orders newest first on desc', () => {
    expect(messages({ order: 'desc' })).toEqual(['done', 'Compiling graph', 'npm ci']);
  });

  it('pages with limit and the offset it handed out', () => {
    const first = logPage(records, { order: 'asc', limit: 2 });
    expect(first.logs.map((entry) => entry.message)).toEqual(['npm ci', 'Compiling graph']);
    expect(first.next_offset).toBe('2');
    expect(messages({ order: 'asc', limit: 2, offset: first.next_offset })).toEqual(['done']);
  });

  it('keeps the offset when nothing new arrived, so polling picks up later lines', () => {
    expect(logPage(records, { offset: '3' })).toEqual({ logs: [], next_offset: '3' });
  });

  it('filters by a case-insensitive text query', () => {
    expect(messages({ query: 'GRAPH' })).toEqual(['Compiling graph']);
  });

  it('filters by level', () => {
    expect(messages({ level: 'info' })).toHaveLength(3);
    expect(messages({ level: 'ERROR' })).toEqual([]);
  });

  it('filters by time window', () => {
    expect(
      messages({ start_time: '2026-01-01T00:00:02.000Z', end_time: '2026-01-01T00:00:02.500Z' }),
    ).toEqual(['Compiling graph']);
  });
});
