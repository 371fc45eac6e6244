import { chmod, chown, lstat, mkdir, rename, rm } from 'node:fs/promises';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { DATABASE_SOCKET_NAME } from './database-gate.js';
import { DatabaseGates } from './database-gates.js';
import type { OsIdentity } from './os-identities.js';

/** What a deployment's runtimes reach the host by, when their jails have networks of their own. */
export type PlatformSockets = {
  /** Bound read-only into the deployment's runtime jails. */
  readonly dir: string;
  /** The directory of the database's socket, for the connection URL's `host`. */
  readonly databaseDir: string;
  /** Relayed to the control plane's own port: the tracing ingest. */
  readonly controlPlaneSocket: string;
};

/** Where one jailed runtime serves: it listens in `listenDir`; the control plane connects to `served`. */
export type RuntimeInbound = {
  /** Bound read-write into the runtime's jail; BERTH_RUNTIME_SOCKET is in it. */
  readonly listenDir: string;
  readonly listenSocket: string;
  /**
   * Once the runtime listens: moves its socket out of its reach (to a directory of root's) and
   * returns that path, after checking that it is a socket of the runtime's user (not a link to
   * another's, nor another's socket); undefined while it is not listening yet.
   */
  readonly claim: () => Promise<string | undefined>;
  readonly remove: () => Promise<void>;
};

export type PlatformSocketOptions = {
  readonly server: { readonly host: string; readonly port: number };
  readonly maxConnections: number;
  readonly loginTimeoutMs: number;
  readonly controlPlanePort: number;
};

/** The control plane's port, for the connections through a deployment's relay, at once. */
const CONTROL_PLANE_RELAY_CONNECTIONS = 64;

/**
 * The Unix sockets between the control plane and sealed jails, under a short directory of root's
 * in /run (a socket's path has at most 107 bytes): per deployment, its database gate (held by
 * the gate process, database-gates.ts) and its relay to the control plane; per runtime, the
 * socket it serves on.
 */
export class JailSockets {
  private readonly platforms = new Map<string, Promise<PlatformSockets>>();
  private readonly relays = new Map<string, Relay>();

  private constructor(
    private readonly root: string,
    /** The database gates, in a process of their own (off the control plane's event loop). */
    private readonly gates: DatabaseGates,
  ) {}

  static async open(instance: string, onError: (error: Error) => void): Promise<JailSockets> {
    const root = join('/run', `berth-${instance}`);
    // What a previous control plane of this instance left (it was killed) serves no one.
    await rm(root, { recursive: true, force: true });
    await mkdir(root, { recursive: true, mode: 0o711 });
    await chmod(root, 0o711);
    return new JailSockets(root, new DatabaseGates(onError));
  }

  /** The deployment's sockets, opened the first time. */
  platformOf(deploymentId: string, options: PlatformSocketOptions): Promise<PlatformSockets> {
    let opened = this.platforms.get(deploymentId);
    if (!opened) {
      opened = this.openPlatform(deploymentId, options);
      opened.catch(() => this.platforms.delete(deploymentId));
      this.platforms.set(deploymentId, opened);
    }
    return opened;
  }

  async closePlatform(deploymentId: string): Promise<void> {
    const relay = this.relays.get(deploymentId);
    this.relays.delete(deploymentId);
    this.platforms.delete(deploymentId);
    await Promise.all([
      this.gates.close(deploymentId),
      relay && closeServer(relay.server, relay.open),
    ]);
    await rm(join(this.root, deploymentId), { recursive: true, force: true });
  }

  /**
   * At shutdown, once every jail has ended: every socket closed, and the directory removed. The
   * gates end with their process, not one by one: nothing a tenant holds open is waited for.
   */
  async close(): Promise<void> {
    await this.gates.stop();
    const relays = [...this.relays.values()];
    this.relays.clear();
    this.platforms.clear();
    await Promise.all(relays.map((relay) => closeServer(relay.server, relay.open)));
    await rm(this.root, { recursive: true, force: true });
  }

  /** A directory for one runtime jail's socket (`name`: the jail's, unique). */
  async runtimeInbound(name: string, identity: OsIdentity): Promise<RuntimeInbound> {
    const dir = join(this.root, name);
    const listenDir = join(dir, 'listen');
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { mode: 0o700 });
    await mkdir(listenDir, { mode: 0o700 });
    await chown(listenDir, identity.uid, identity.gid);
    const listenSocket = join(listenDir, 'runtime.sock');
    const served = join(dir, 'runtime.sock');
    let claimed = false;
    return {
      listenDir,
      listenSocket,
      claim: async () => {
        if (claimed) return served;
        const found = await lstat(listenSocket).catch(() => undefined);
        if (!found) return undefined;
        await rename(listenSocket, served);
        const moved = await lstat(served);
        if (!moved.isSocket() || moved.uid !== identity.uid) {
          await rm(served, { force: true });
          throw new Error('The runtime put something other than its own socket where it listens');
        }
        claimed = true;
        return served;
      },
      remove: () => rm(dir, { recursive: true, force: true }),
    };
  }

  private async openPlatform(
    deploymentId: string,
    options: PlatformSocketOptions,
  ): Promise<PlatformSockets> {
    const dir = join(this.root, deploymentId);
    const databaseDir = join(dir, 'database');
    await rm(dir, { recursive: true, force: true });
    await mkdir(databaseDir, { recursive: true, mode: 0o755 });
    await chmod(dir, 0o755);
    await this.gates.open(deploymentId, {
      socketPath: join(databaseDir, DATABASE_SOCKET_NAME),
      server: options.server,
      maxConnections: options.maxConnections,
      loginTimeoutMs: options.loginTimeoutMs,
    });
    const controlPlaneSocket = join(dir, 'control-plane.sock');
    const relay = await relayTo(controlPlaneSocket, options.controlPlanePort);
    this.relays.set(deploymentId, relay);
    return { dir, databaseDir, controlPlaneSocket };
  }
}

type Relay = { readonly server: Server; readonly open: Set<Socket> };

/** A Unix socket relayed to the control plane's own port on loopback, a few connections at once. */
async function relayTo(socketPath: string, port: number): Promise<Relay> {
  const open = new Set<Socket>();
  const server = createServer((client) => {
    client.on('error', () => undefined);
    if (open.size >= CONTROL_PLANE_RELAY_CONNECTIONS) {
      client.destroy();
      return;
    }
    open.add(client);
    const upstream = connect(port, '127.0.0.1');
    upstream.on('error', () => client.destroy());
    client.on('close', () => {
      open.delete(client);
      upstream.destroy();
    });
    upstream.on('close', () => client.destroy());
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.unref();
  await chmod(socketPath, 0o666);
  return { server, open };
}

async function closeServer(server: Server, open: Set<Socket>): Promise<void> {
  for (const socket of open) socket.destroy();
  await new Promise<void>((resolve) =>
    server.close(() => {
      resolve();
    }),
  );
}
