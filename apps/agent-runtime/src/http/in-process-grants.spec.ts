import type { ServerResponse } from 'node:http';
import { describe, expect, it } from '@jest/globals';
import type { FastifyRequest } from 'fastify';
import { IN_PROCESS_HEADER, InProcessGrants } from './in-process-grants.js';

const requestWith = (headers: Record<string, string>): FastifyRequest =>
  ({ raw: { headers: { ...headers } } }) as unknown as FastifyRequest;
const response = {} as ServerResponse;

describe('InProcessGrants', () => {
  it('redeems a token once, and removes its header', () => {
    const grants = new InProcessGrants();
    const { token, handedOver } = grants.issue({ kind: 'loopback' });
    const first = requestWith({ [IN_PROCESS_HEADER]: token });
    expect(grants.redeem(first, response)).toEqual({ kind: 'loopback' });
    expect(first.raw.headers[IN_PROCESS_HEADER]).toBeUndefined();
    expect(handedOver.response).toBe(response);
    expect(grants.redeem(requestWith({ [IN_PROCESS_HEADER]: token }), response)).toBeUndefined();
  });

  it('grants nothing to a forged or revoked token, and drops its header all the same', () => {
    const grants = new InProcessGrants();
    const forged = requestWith({ [IN_PROCESS_HEADER]: 'guessed' });
    expect(grants.redeem(forged, response)).toBeUndefined();
    expect(forged.raw.headers[IN_PROCESS_HEADER]).toBeUndefined();
    const { token, revoke } = grants.issue({ kind: 'berth-route', auth: undefined });
    revoke();
    expect(grants.redeem(requestWith({ [IN_PROCESS_HEADER]: token }), response)).toBeUndefined();
  });

  it('leaves a request without the header alone', () => {
    expect(new InProcessGrants().redeem(requestWith({}), response)).toBeUndefined();
  });
});
