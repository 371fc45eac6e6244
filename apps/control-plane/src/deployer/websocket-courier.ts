import type { ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { forkPlatformChild, letGo } from '../isolation/platform-child.js';
import type { CourierReply, CourierRequest } from './websocket-courier-main.js';
import type { UpgradeToJoin } from './websocket-joins.js';

const COURIER_SCRIPT = fileURLToPath(new URL('./websocket-courier-main.js', import.meta.url));

/** What takes accepted upgrades' client sockets over and joins them to their runtimes. */
export interface UpgradeCourier {
  /** Takes the socket over: from here on it is the courier's, counted under `upgrade.key`. */
  handOver(upgrade: UpgradeToJoin, client: Socket): void;
  /** WebSockets of `key` handed over and not yet closed. */
  openCount(key: string): number;
  /** Ends every WebSocket of `key`. */
  closeAll(key: string): void;
}

/**
 * The WebSocket courier: one process of its own (websocket-courier-main.ts), started when the
 * first upgrade is handed over and again after it ends, that holds every WebSocket's two
 * descriptors, so that the control plane holds none once it has handed a socket over (Node
 * passes the descriptor on the IPC channel, SCM_RIGHTS, and closes its own). The courier reports
 * each WebSocket that closes; its end closes all of them.
 */
/** A courier process and the WebSockets it holds, counted by key. */
interface Courier {
  readonly child: ChildProcess;
  readonly open: Map<string, number>;
}

export class WebSocketCourier implements UpgradeCourier {
  private current: Courier | undefined;
  private stopped = false;

  constructor(private readonly onError: (error: Error) => void = () => undefined) {}

  handOver(upgrade: UpgradeToJoin, client: Socket): void {
    const courier = this.running();
    if (!courier) {
      client.destroy();
      return;
    }
    const { key, endpoint } = upgrade;
    courier.open.set(key, (courier.open.get(key) ?? 0) + 1);
    const request: CourierRequest = {
      kind: 'join',
      key,
      endpoint,
      opening: upgrade.opening.toString('base64'),
    };
    courier.child.send(request, client, (error) => {
      if (error) closed(courier, key);
    });
  }

  openCount(key: string): number {
    return this.current?.open.get(key) ?? 0;
  }

  closeAll(key: string): void {
    const child = this.current?.child;
    if (child?.connected) child.send({ kind: 'close', key } satisfies CourierRequest);
  }

  /** At shutdown: the courier ends, and with it every WebSocket. */
  async stop(): Promise<void> {
    this.stopped = true;
    const child = this.current?.child;
    this.current = undefined;
    await letGo(child);
  }

  /** The courier's pid, for tests and the log; undefined when none runs. */
  get pid(): number | undefined {
    return this.current?.child.pid;
  }

  private running(): Courier | undefined {
    if (this.stopped) return undefined;
    if (this.current?.child.connected) return this.current;
    const courier: Courier = { child: forkPlatformChild(COURIER_SCRIPT), open: new Map() };
    const { child } = courier;
    child.on('message', (reply: CourierReply) => {
      closed(courier, reply.key);
    });
    child.on('exit', (code, signal) => {
      if (this.current === courier) this.current = undefined;
      if (!this.stopped) {
        this.onError(new Error(`The WebSocket courier ended (${signal ?? `code ${code}`})`));
      }
    });
    this.current = courier;
    return courier;
  }
}

function closed(courier: Courier, key: string): void {
  const left = (courier.open.get(key) ?? 0) - 1;
  if (left > 0) courier.open.set(key, left);
  else courier.open.delete(key);
}
