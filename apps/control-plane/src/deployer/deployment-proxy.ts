import { createConnection, createServer, type Server, type Socket } from 'node:net';

/**
 * A deployment's stable address: a TCP proxy in front of whichever runtime process is active.
 * Switching the target sends new connections to the new process; open ones finish where they are.
 */
export class DeploymentProxy {
  private target: number | undefined;
  private readonly sockets = new Set<Socket>();
  private readonly server: Server;

  constructor() {
    this.server = createServer((client) => {
      this.sockets.add(client);
      client.once('close', () => this.sockets.delete(client));
      const port = this.target;
      if (port === undefined) {
        client.end(
          'HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nconnection: close\r\n\r\n' +
            '{"detail":"This deployment has no running revision yet"}',
        );
        return;
      }
      const upstream = createConnection({ host: '127.0.0.1', port });
      this.sockets.add(upstream);
      upstream.once('close', () => this.sockets.delete(upstream));
      client.pipe(upstream).pipe(client);
      client.on('error', () => upstream.destroy());
      upstream.on('error', () => client.destroy());
    });
  }

  listen(port: number, host: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
  }

  get listening(): boolean {
    return this.server.listening;
  }

  switchTo(port: number): void {
    this.target = port;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    if (!this.server.listening) return;
    await new Promise<void>((resolve) =>
      this.server.close(() => {
        resolve();
      }),
    );
  }
}
