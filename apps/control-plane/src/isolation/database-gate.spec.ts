import { describe, expect, it } from '@jest/globals';
import { errorResponse, scanForReady } from './database-gate.js';

const message = (type: string, body: Buffer = Buffer.alloc(0)): Buffer => {
  const header = Buffer.alloc(5);
  header.write(type, 0, 'latin1');
  header.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
};

describe('scanForReady', () => {
  it('finds the first ReadyForQuery after the login messages', () => {
    const login = Buffer.concat([
      message('R', Buffer.from([0, 0, 0, 0])),
      message('S', Buffer.from('a\0b\0')),
      message('Z', Buffer.from('I')),
    ]);
    expect(scanForReady(login)).toEqual({ consumed: login.length, ready: true });
  });

  it('keeps a message cut in two for the next chunk', () => {
    const challenge = message('R', Buffer.from([0, 0, 0, 10, 1, 2, 3]));
    expect(scanForReady(challenge.subarray(0, 6))).toEqual({ consumed: 0, ready: false });
    expect(scanForReady(challenge)).toEqual({ consumed: challenge.length, ready: false });
  });
});

describe('errorResponse', () => {
  it('is a FATAL ErrorResponse with its SQLSTATE', () => {
    const error = errorResponse('53300', 'too many');
    expect(error.toString('latin1', 0, 1)).toBe('E');
    expect(error.readInt32BE(1)).toBe(error.length - 1);
    expect(error.toString('utf8')).toContain('C53300\0Mtoo many\0');
  });
});
