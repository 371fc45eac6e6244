import net from 'node:net';
import { freePort } from './free-port.js';

export interface SwitchableProxy {
  readonly url: string;
  readonly port: number;
  /** Stops listening and destroys every open connection: the network is gone. */
  stop(): Promise<void>;
  /** Listens again on the same port: the network is back. */
  start(): Promise<void>;
  /** Stops for good. */
  close(): Promise<void>;
}

/**
 * A TCP proxy on a free port in front of a local server, which a test stops and starts to cut a
 * client (a browser) off from the server and let it back, as a dropped network would.
 */
export async function startSwitchableProxy(targetPort: number): Promise<SwitchableProxy> {
  const sockets = new Set<net.Socket>();
  const track = (socket: net.Socket): void => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  };
  const server = net.createServer((client) => {
    const upstream = net.connect({ port: targetPort, host: '127.0.0.1' });
    track(client);
    track(upstream);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.pipe(upstream);
    upstream.pipe(client);
  });
  const port = await freePort();
  const start = (): Promise<void> =>
    new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  const stop = (): Promise<void> =>
    new Promise((resolve) => {
      for (const socket of sockets) socket.destroy();
      if (!server.listening) {
        resolve();
        return;
      }
      server.close(() => {
        resolve();
      });
    });
  await start();
  return { url: `http://127.0.0.1:${port}`, port, stop, start, close: stop };
}
