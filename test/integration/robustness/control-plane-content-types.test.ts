import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import {
  startControlPlane,
  TEST_API_KEY,
  type ControlPlaneProcess,
} from '../../support/control-plane-process.js';

jest.setTimeout(60_000);

const ANY_ID = '0000aaaa-0000-4000-8000-00000000abcd';
const RAW_TYPES = [
  'application/gzip',
  'application/x-gzip',
  'application/octet-stream',
  'application/x-tar',
];

describe('raw request bodies reach the upload route alone', () => {
  let cp: ControlPlaneProcess;

  beforeAll(async () => {
    cp = await startControlPlane();
  });

  afterAll(async () => {
    await cp.dispose();
  });

  async function send(method: string, path: string, contentType: string, key?: string) {
    const response = await fetch(`${cp.url}${path}`, {
      method,
      headers: { 'content-type': contentType, ...(key ? { 'x-api-key': key } : {}) },
      body: 'hello',
    });
    return { status: response.status, body: (await response.json()) as { detail?: unknown } };
  }

  it.each(RAW_TYPES)(
    'answers 401 to an unauthenticated %s body on the tracing ingest route (its token comes before its body) and keeps serving',
    async (contentType) => {
      const answer = await send('POST', `/v1/tracing-projects/${ANY_ID}/runs`, contentType);
      expect(answer.status).toBe(401);
      expect(answer.body.detail).toEqual(expect.stringContaining('tracing token'));
      expect((await fetch(`${cp.url}/ok`)).status).toBe(200);
    },
  );

  it.each([
    ['POST', '/v2/listeners'],
    ['POST', '/v2/deployments'],
    ['PATCH', `/v2/deployments/${ANY_ID}`],
    ['POST', `/v2/deployments/${ANY_ID}/upload-url`],
  ])(
    'answers 415 to an octet-stream body on %s %s with a key and keeps serving',
    async (method, path) => {
      const answer = await send(method, path, 'application/octet-stream', TEST_API_KEY);
      expect(answer.status).toBe(415);
      expect(typeof answer.body.detail).toBe('string');
      expect((await fetch(`${cp.url}/ok`)).status).toBe(200);
    },
  );

  it('still streams a tarball type to the upload route (refused there only for its signature)', async () => {
    const answer = await send('PUT', `/v2/uploads/${ANY_ID}/source.tar.gz`, 'application/gzip');
    expect(answer.status).toBe(401);
    expect(cp.child.exitCode).toBeNull();
  });
});
