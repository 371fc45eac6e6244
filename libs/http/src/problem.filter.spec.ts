import { describe, expect, it } from '@jest/globals';
import { BadRequestException, type ArgumentsHost } from '@nestjs/common';
import { DATABASE_BUSY, ProblemFilter } from './problem.filter.js';
import { ValidationFailedError } from './validation-failed.error.js';

interface Sent {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
}

function hostCapturing(sent: Sent): ArgumentsHost {
  const reply = {
    sent: false,
    status(code: number) {
      sent.status = code;
      return reply;
    },
    header(name: string, value: string) {
      if (name !== 'content-type') sent.headers = { ...sent.headers, [name]: value };
      return reply;
    },
    send(body: unknown) {
      sent.body = body;
      return reply;
    },
  };
  return { switchToHttp: () => ({ getResponse: () => reply }) } as unknown as ArgumentsHost;
}

function answer(error: unknown): Sent {
  const sent: Sent = {};
  new ProblemFilter().catch(error, hostCapturing(sent));
  return sent;
}

class CodedError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

describe('ProblemFilter', () => {
  it('answers a validation failure 422 with the list of issues', () => {
    const issues = [
      { loc: ['body', 'graph_id'], msg: 'graph_id must be a string', type: 'isString' },
    ];
    expect(answer(new ValidationFailedError(issues))).toEqual({
      status: 422,
      body: { detail: issues },
    });
  });

  it('maps domain error codes to their statuses, with the message as detail', () => {
    expect(answer(new CodedError('not_found', 'Thread x not found'))).toEqual({
      status: 404,
      body: { detail: 'Thread x not found' },
    });
    expect(answer(new CodedError('conflict', 'busy')).status).toBe(409);
    expect(answer(new CodedError('wrong_expected_position', 'moved')).status).toBe(409);
    expect(answer(new CodedError('projection_timeout', 'slow')).status).toBe(503);
  });

  it("keeps Nest's and Fastify's own client errors as they are", () => {
    expect(answer(new BadRequestException('bad'))).toEqual({
      status: 400,
      body: { detail: 'bad' },
    });
    const unparsable = Object.assign(new Error('Body is not valid JSON'), { statusCode: 400 });
    expect(answer(unparsable)).toEqual({ status: 400, body: { detail: 'Body is not valid JSON' } });
  });

  it('answers anything unexpected 500 without its message', () => {
    expect(answer(new Error('connection string postgres://user:secret@db'))).toEqual({
      status: 500,
      body: { detail: 'Internal server error' },
    });
  });

  it('answers a database out of connections 503 with Retry-After, naming no role', () => {
    const tooMany = Object.assign(new Error('sorry, too many clients already'), { code: '53300' });
    const forRole = Object.assign(
      new Error('too many connections for role "berth_deployment_0123"'),
      { code: '53300' },
    );
    const configured = Object.assign(new Error('configuration limit exceeded'), { code: '53400' });
    const wrapped = { message: 'query failed', driverError: forRole };
    for (const error of [
      tooMany,
      forRole,
      configured,
      wrapped,
      new Error('x', { cause: forRole }),
    ]) {
      expect(answer(error)).toEqual({
        status: 503,
        body: { detail: DATABASE_BUSY },
        headers: { 'retry-after': '5' },
      });
    }
    expect(DATABASE_BUSY).not.toContain('berth_deployment');
  });
});
