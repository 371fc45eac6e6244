import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseGate } from './database-gate.js';

/** A client that never ends its side: the gate's end of the connection stays half open. */
async function holdOpen(path: string): Promise<Socket> {
  const socket = connect({ path, allowHalfOpen: true });
  socket.on('error', () => undefined);
  socket.resume();
  await once(socket, 'connect');
  return socket;
}

describe('DatabaseGate.close', () => {
  let dir: string;
  let server: Server;
  let gate: DatabaseGate;
  const clients: Socket[] = [];

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'database-gate-'));
    // A PostgreSQL that accepts and never answers.
    server = createServer(() => undefined);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    gate = new DatabaseGate({
      socketPath: join(dir, 'gate.sock'),
      server: { host: '127.0.0.1', port: (server.address() as AddressInfo).port },
      maxConnections: 1,
      loginTimeoutMs: 60_000,
    });
    await gate.listen();
  });

  afterEach(async () => {
    for (const client of clients.splice(0)) client.destroy();
    server.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('ends whatever the tenant holds open: a connection logging in and one refused', async () => {
    const admitted = await holdOpen(join(dir, 'gate.sock'));
    const refused = await holdOpen(join(dir, 'gate.sock'));
    clients.push(admitted, refused);
    // The refusal (an ErrorResponse) arrives and the gate ends its side; the tenant does not.
    await once(refused, 'end');
    // Before, close() waited for the tenant to end the refused connection: forever.
    await expect(gate.close()).resolves.toBeUndefined();
  }, 10_000);
});
