import { chmod, rm } from 'node:fs/promises';
import { connect, createServer, type Server, type Socket } from 'node:net';

/** PostgreSQL's file name for a server's socket in its directory (libpq and pg look for it). */
export const DATABASE_SOCKET_NAME = '.s.PGSQL.5432';

/** PostgreSQL's ErrorResponse, sent in place of the server's to a connection refused here. */
export function errorResponse(code: string, message: string): Buffer {
  const fields = Buffer.from(`SFATAL\0VFATAL\0C${code}\0M${message}\0\0`, 'utf8');
  const header = Buffer.alloc(5);
  header.write('E', 0, 'latin1');
  header.writeInt32BE(fields.length + 4, 1);
  return Buffer.concat([header, fields]);
}

/**
 * Scans the server's side of a connection for its first ReadyForQuery ('Z'): the login is over.
 * Returns how many bytes of `pending` were consumed whole, and whether 'Z' was among them.
 */
export function scanForReady(pending: Buffer): { consumed: number; ready: boolean } {
  let offset = 0;
  while (pending.length - offset >= 5) {
    const type = pending[offset];
    const length = pending.readInt32BE(offset + 1);
    if (length < 4) return { consumed: offset, ready: false };
    if (pending.length - offset < 1 + length) break;
    offset += 1 + length;
    if (type === 0x5a) return { consumed: offset, ready: true };
  }
  return { consumed: offset, ready: false };
}

export type DatabaseGateOptions = {
  /** The Unix socket the deployment's jails connect to. */
  readonly socketPath: string;
  /** The PostgreSQL server, as the control plane reaches it. */
  readonly server: { readonly host: string; readonly port: number };
  /** Connections at once: the deployment role's CONNECTION LIMIT. */
  readonly maxConnections: number;
  /** A connection not logged in by then is closed. */
  readonly loginTimeoutMs: number;
};

/**
 * A deployment's only way to its PostgreSQL: a Unix socket bound into its jails (which have no
 * other way to the server), relayed to the server byte for byte. PostgreSQL counts a connection
 * against a role's limit only once it has logged in, and one that never answers its password
 * challenge holds a server slot all the same: here a deployment holds at most its role's limit
 * of connections, logged in or not, and one that has not logged in within the timeout is closed.
 */
export class DatabaseGate {
  private readonly server: Server;
  private readonly open = new Set<Socket>();
  private readonly accepted = new Set<Socket>();

  constructor(private readonly options: DatabaseGateOptions) {
    this.server = createServer((client) => {
      this.admit(client);
    });
  }

  async listen(): Promise<void> {
    await rm(this.options.socketPath, { force: true });
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.options.socketPath, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    // Reached only through the jail's bind of its directory; a jail's user must be let connect.
    this.server.unref();
    await chmod(this.options.socketPath, 0o666);
  }

  async close(): Promise<void> {
    for (const socket of this.accepted) socket.destroy();
    await new Promise<void>((resolve) =>
      this.server.close(() => {
        resolve();
      }),
    );
  }

  private admit(client: Socket): void {
    client.on('error', () => undefined);
    // Refused ones too: a tenant that never closes its side must not keep close() waiting.
    this.accepted.add(client);
    client.once('close', () => this.accepted.delete(client));
    if (this.open.size >= this.options.maxConnections) {
      client.end(
        errorResponse(
          '53300',
          `this deployment already has ${this.options.maxConnections} connections open or logging in`,
        ),
      );
      return;
    }
    this.open.add(client);
    const upstream = connect(this.options.server.port, this.options.server.host);
    upstream.on('error', () => client.destroy());
    client.on('close', () => {
      this.open.delete(client);
      upstream.destroy();
    });
    upstream.on('close', () => client.destroy());
    const timer = setTimeout(() => {
      client.destroy();
    }, this.options.loginTimeoutMs);
    client.pipe(upstream);
    let pending: Buffer = Buffer.alloc(0);
    const watch = (chunk: Buffer): void => {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      const { consumed, ready } = scanForReady(pending);
      pending = pending.subarray(consumed);
      if (!ready) return;
      clearTimeout(timer);
      upstream.off('data', watch);
    };
    upstream.on('data', watch);
    upstream.pipe(client);
    client.once('close', () => {
      clearTimeout(timer);
    });
  }
}
