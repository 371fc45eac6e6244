import net from 'node:net';

/** A port that was free a moment ago (the OS picks it), never 2024. */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = await new Promise<number>((resolve, reject) => {
      const server = net.createServer();
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        const { port: chosen } = server.address() as net.AddressInfo;
        server.close(() => {
          resolve(chosen);
        });
      });
    });
    if (port !== 2024) return port;
  }
}
