import { describe, expect, it } from '@jest/globals';
import { configurableHeadersOf } from './configurable-headers.js';

describe('configurableHeadersOf', () => {
  it('passes x- headers and user-agent, lower-cased, lists joined', () => {
    expect(
      configurableHeadersOf({
        'x-team': 'blue',
        'X-Region': 'eu',
        'x-tags': ['a', 'b'],
        'user-agent': 'sdk',
        'content-type': 'application/json',
        host: 'localhost',
      }),
    ).toEqual({ 'x-team': 'blue', 'x-region': 'eu', 'x-tags': 'a, b', 'user-agent': 'sdk' });
  });

  it("withholds the platform's credentials and headers named as credentials", () => {
    expect(
      configurableHeadersOf({
        'x-api-key': 'k',
        'x-tenant-id': 't',
        'x-service-key': 's',
        'x-openai-key': 'o',
        'x-caller-token': 'c',
        'x-client-secret': 'c',
        'x-authorization': 'a',
        'x-session-id': 's',
        'x-team': 'blue',
      }),
    ).toEqual({ 'x-team': 'blue' });
  });
});
