import { readableLogLine } from './log-line';

const at = '2026-11-27T10:34:39.819Z';

describe('readableLogLine', () => {
  it('shows a structured line by its level and message, with one time', () => {
    const message = JSON.stringify({
      level: 'info',
      time: at,
      service: 'berth-runtime',
      msg: 'Server listening at http://127.0.0.1:8201',
    });
    expect(readableLogLine({ timestamp: at, message })).toEqual({
      time: '10:34:39.819',
      level: 'INFO',
      text: 'Server listening at http://127.0.0.1:8201',
    });
  });

  it("says a request's method, path, status and time", () => {
    const message = JSON.stringify({
      level: 'info',
      msg: 'request answered',
      method: 'GET',
      path: '/threads/search',
      status: 200,
      ms: 4.1,
    });
    expect(readableLogLine({ timestamp: at, message }).text).toBe(
      'request answered: GET /threads/search 200 in 4.1 ms',
    );
  });

  it('keeps a plain line (a build command) as it is', () => {
    expect(readableLogLine({ timestamp: at, message: 'added 12 packages in 3s' })).toEqual({
      time: '10:34:39.819',
      level: '',
      text: 'added 12 packages in 3s',
    });
  });
});
