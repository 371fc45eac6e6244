import { describe, expect, it, jest } from '@jest/globals';
import { connect } from 'node:net';
import { runtimeSuite } from '../../support/runtime-suite.js';

jest.setTimeout(120_000);

/** Opens a connection, sends `text`, sends nothing more, and resolves when the server closes it. */
function stall(port: number, text: string): Promise<{ closedAfterMs: number; answer: string }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    let answer = '';
    const socket = connect(port, '127.0.0.1', () => socket.write(text));
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      resolve({ closedAfterMs: Date.now() - started, answer });
    });
  });
}

describe('clients that stop sending mid-request are cut off', () => {
  const suite = runtimeSuite('runtime_slow_clients');

  it('closes a connection whose body never finishes, and one whose headers never end', async () => {
    const port = Number(new URL(suite.runtime.url).port);
    const [body, headers] = await Promise.all([
      stall(
        port,
        'POST /threads HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
          `x-api-key: ${suite.runtime.apiKey}\r\nContent-Length: 1000\r\n\r\n{"metadata": {`,
      ),
      stall(port, 'GET /ok HTTP/1.1\r\nHost: x\r\nx-slow: '),
    ]);
    // The idle timeout is 30 s and the headers timeout 15 s: minutes would be the defect.
    expect(body.closedAfterMs).toBeLessThan(45_000);
    expect(headers.closedAfterMs).toBeLessThan(45_000);
    expect((await fetch(`${suite.runtime.url}/ok`)).status).toBe(200);
  });
});
