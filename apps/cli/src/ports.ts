import net from 'node:net';

/** Whether nothing listens on host:port (tried by listening there for a moment). */
export function isPortFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => {
      resolve(false);
    });
    server.listen({ host, port, exclusive: true }, () => {
      server.close(() => {
        resolve(true);
      });
    });
  });
}

/** The first free port from `from` on, among `count`; undefined when all are taken. */
export async function firstFreePort(
  host: string,
  from: number,
  count = 20,
): Promise<number | undefined> {
  for (let port = from; port < from + count && port <= 65_535; port += 1) {
    if (await isPortFree(host, port)) return port;
  }
  return undefined;
}

/** Says what to do when a port someone chose is taken; nothing when it is free. */
export async function requireFreePort(host: string, port: number, choose: string): Promise<void> {
  if (await isPortFree(host, port)) return;
  throw new Error(`Port ${port} on ${host} is in use: stop what serves on it, or ${choose}.`);
}
