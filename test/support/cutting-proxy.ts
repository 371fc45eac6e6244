import net from 'node:net';
import { freePort } from './free-port.js';

export interface CuttingProxyOptions {
  /** The port the proxy forwards to (on `targetHost`). */
  readonly targetPort: number;
  readonly targetHost?: string;
  /**
   * How many bytes of the FIRST connection's response (status line and headers included) reach
   * the client before the proxy destroys that connection. Later connections pass untouched.
   */
  readonly cutAfterBytes: number;
}

export interface CuttingProxy {
  readonly url: string;
  readonly port: number;
  /** How many client connections the proxy accepted so far. */
  connections(): number;
  /** Whether the first response was cut (it had more than `cutAfterBytes` bytes). */
  wasCut(): boolean;
  /** The bytes of the first response that reached the client. */
  firstResponseBytes(): number;
  /** Stops listening and destroys every connection still open. */
  close(): Promise<void>;
}

/**
 * A tiny TCP proxy on a free port that forwards to a local server and cuts the first connection
 * short, as a flaky network would: once `cutAfterBytes` bytes of its response went to the client,
 * both sides of that connection are destroyed (the cut usually falls in the middle of a record).
 */
export async function startCuttingProxy(options: CuttingProxyOptions): Promise<CuttingProxy> {
  const host = options.targetHost ?? '127.0.0.1';
  const sockets = new Set<net.Socket>();
  let accepted = 0;
  let forwarded = 0;
  let cut = false;

  const track = (socket: net.Socket): void => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  };

  const server = net.createServer((client) => {
    const first = accepted === 0;
    accepted += 1;
    const upstream = net.connect({ port: options.targetPort, host });
    track(client);
    track(upstream);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.pipe(upstream);
    if (!first) {
      upstream.pipe(client);
      return;
    }
    upstream.on('data', (chunk: Buffer) => {
      if (cut) return;
      const room = options.cutAfterBytes - forwarded;
      if (chunk.length < room) {
        forwarded += chunk.length;
        if (!client.write(chunk)) {
          upstream.pause();
          client.once('drain', () => upstream.resume());
        }
        return;
      }
      cut = true;
      forwarded += room;
      upstream.destroy();
      client.write(chunk.subarray(0, room), () => client.destroy());
    });
    upstream.on('end', () => client.end());
  });

  const port = await freePort();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    connections: () => accepted,
    wasCut: () => cut,
    firstResponseBytes: () => forwarded,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => {
          resolve();
        });
      }),
  };
}
