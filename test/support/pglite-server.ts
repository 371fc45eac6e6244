import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import net from 'node:net';
import { freePort } from './free-port.js';
import { SessionPinning } from './pglite-session-pinning.js';

export interface PgliteServer {
  /** A `postgres://` URL any PostgreSQL client can connect to, as many times as it likes. */
  readonly url: string;
  /** The PGlite instance itself, for queries from the test. */
  readonly db: PGlite;
  stop(): Promise<void>;
}

/**
 * PGlite (PostgreSQL compiled to WebAssembly, with the pgvector extension) served over the
 * PostgreSQL wire protocol: `@electric-sql/pglite-socket` serves its one session to one
 * connection, and a proxy in front lends that session to many clients, one transaction at a
 * time (test/support/pglite-session-pinning.ts), as a pooler in transaction mode does.
 */
export async function startPgliteServer(): Promise<PgliteServer> {
  const db = await PGlite.create({ extensions: { vector } });
  const socketServer = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0 });
  await socketServer.start();
  const [host, port] = socketServer.getServerConn().split(':');
  const upstream = net.connect({ host, port: Number(port) });
  await new Promise<void>((done, fail) => {
    upstream.once('connect', done);
    upstream.once('error', fail);
  });
  const pinning = await SessionPinning.start(upstream, { user: 'postgres', database: 'postgres' });
  const proxy = net.createServer((socket) => {
    pinning.accept(socket);
  });
  const proxyPort = await freePort();
  await new Promise<void>((done) => proxy.listen(proxyPort, '127.0.0.1', done));
  return {
    url: `postgres://postgres@127.0.0.1:${proxyPort}/postgres`,
    db,
    stop: async () => {
      pinning.close();
      await new Promise<void>((done) => {
        proxy.close(() => {
          done();
        });
      });
      upstream.destroy();
      await socketServer.stop();
      await db.close();
    },
  };
}
