import { PassThrough } from 'node:stream';
import { describe, expect, it } from '@jest/globals';
import { createLogger } from './logger.js';

/** What a logger in this format writes for one line with secrets in it. */
function written(pretty: boolean): string {
  const sink = new PassThrough();
  let text = '';
  sink.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const logger = createLogger('berth-test', { level: 'info', pretty }, sink);
  logger.info(
    {
      apiKey: 'key-aaaa',
      token: 'token-bbbb',
      headers: { authorization: 'Bearer cccc', 'x-api-key': 'key-dddd', accept: 'text/plain' },
      request: { headers: { cookie: 'session=eeee' } },
    },
    'request answered',
  );
  return text;
}

describe('createLogger', () => {
  it.each([
    ['JSON lines', false],
    ['readable lines', true],
  ])('never writes a secret, in %s', (_format, pretty) => {
    const text = written(pretty);
    expect(text).toContain('request answered');
    expect(text).toContain('text/plain');
    expect(text).toContain('[redacted]');
    for (const secret of ['aaaa', 'bbbb', 'cccc', 'dddd', 'eeee'])
      expect(text).not.toContain(secret);
  });

  it('writes one JSON object a line, or one readable line without the JSON', () => {
    const json = written(false).trim().split('\n');
    expect(json).toHaveLength(1);
    expect(JSON.parse(json[0] ?? '')).toMatchObject({
      level: 'info',
      service: 'berth-test',
      msg: 'request answered',
    });
    const pretty = written(true).trim().split('\n');
    expect(pretty).toHaveLength(1);
    expect(pretty[0]).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: request answered /);
  });
});
