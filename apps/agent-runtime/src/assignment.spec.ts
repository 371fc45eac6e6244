import { describe, expect, it } from '@jest/globals';
import { PassThrough } from 'node:stream';
import { awaitAssignment, parseAssignment } from './assignment.js';

describe('awaitAssignment', () => {
  it('resolves with the env of the first line, even when it arrives in pieces', async () => {
    const stdin = new PassThrough();
    const assignment = awaitAssignment(stdin);
    stdin.write('{"env":{"A":"1",');
    stdin.write('"B":"two"}}\nanything after');
    await expect(assignment).resolves.toEqual({ env: { A: '1', B: 'two' } });
  });

  it('resolves undefined when stdin ends before a line', async () => {
    const stdin = new PassThrough();
    const assignment = awaitAssignment(stdin);
    stdin.end('{"env":');
    await expect(assignment).resolves.toBeUndefined();
  });

  it('leaves stdin for others to read after the line', async () => {
    const stdin = new PassThrough();
    const assignment = awaitAssignment(stdin);
    stdin.write('{"env":{}}\n');
    await assignment;
    expect(stdin.listenerCount('data')).toBe(0);
    expect(stdin.isPaused()).toBe(true);
  });
});

describe('parseAssignment', () => {
  it.each(['[]', 'null', '{"env":[]}', '{"env":{"A":1}}', '{}'])('refuses %s', (line) => {
    expect(() => parseAssignment(line)).toThrow();
  });

  it('refuses a line that is not JSON', () => {
    expect(() => parseAssignment('not json')).toThrow(SyntaxError);
  });

  it('reads the OS user and group to run as, when given', () => {
    expect(parseAssignment('{"env":{},"identity":{"uid":600001,"gid":600002}}')).toEqual({
      env: {},
      identity: { uid: 600001, gid: 600002 },
    });
    expect(parseAssignment('{"env":{}}').identity).toBeUndefined();
  });

  it.each(['{"uid":0,"gid":600002}', '{"uid":600001}', '{"uid":"600001","gid":1}', '[]'])(
    'refuses the identity %s (never root, never partial)',
    (identity) => {
      expect(() => parseAssignment(`{"env":{},"identity":${identity}}`)).toThrow(/identity/);
    },
  );
});
