import { connect, type Socket } from 'node:net';
import type { RuntimeEndpoint } from './runtime-forwarding.js';

/** One upgrade handed over: whose it is, where its runtime serves, and what to send it first. */
export interface UpgradeToJoin {
  /** Whose WebSockets these are (a deployment's port, the gateway): counted and closed by it. */
  readonly key: string;
  readonly endpoint: RuntimeEndpoint;
  /** The upgrade request's head as the runtime is to get it, then what the client sent after. */
  readonly opening: Buffer;
}

const RUNTIME_DID_NOT_ANSWER = JSON.stringify({
  detail: "The deployment's runtime did not answer",
});

/** How long a client answered 502 is given to read it and go. */
const REFUSED_LINGER_MS = 10_000;

/** A 502 written on a raw socket, for a runtime that could not be reached. */
const badGateway = (): string =>
  'HTTP/1.1 502 Bad Gateway\r\ncontent-type: application/json\r\nconnection: close\r\n' +
  `content-length: ${Buffer.byteLength(RUNTIME_DID_NOT_ANSWER)}\r\n\r\n${RUNTIME_DID_NOT_ANSWER}`;

/**
 * Client sockets of upgrades, each joined byte for byte to a connection of its own to the
 * runtime: the upgrade request goes first, then whatever either side sends, until either closes
 * (then both do). The runtime's answer, a 101 or a refusal, reaches the client as it was written.
 * A runtime that cannot be reached is answered 502 JSON. `onClosed` hears of every pair that ends.
 */
export class WebSocketJoins {
  private readonly open = new Map<string, Set<Socket>>();

  constructor(private readonly onClosed: (key: string) => void) {}

  join(upgrade: UpgradeToJoin, client: Socket): void {
    const pairs = this.open.get(upgrade.key) ?? new Set<Socket>();
    this.open.set(upgrade.key, pairs);
    pairs.add(client);
    const runtime =
      typeof upgrade.endpoint === 'number'
        ? connect(upgrade.endpoint, '127.0.0.1')
        : connect(upgrade.endpoint);
    let answered = false;
    let ended = false;
    const end = (): void => {
      if (ended) return;
      ended = true;
      client.destroy();
      runtime.destroy();
      pairs.delete(client);
      if (pairs.size === 0 && this.open.get(upgrade.key) === pairs) this.open.delete(upgrade.key);
      this.onClosed(upgrade.key);
    };
    let refused = false;
    runtime.once('data', () => (answered = true));
    runtime.on('error', () => {
      if (answered || client.destroyed) {
        end();
        return;
      }
      // The client's own closing ends the pair once it has read the answer.
      refused = true;
      client.end(badGateway());
      client.setTimeout(REFUSED_LINGER_MS, end);
    });
    client.on('error', end);
    runtime.once('close', () => {
      if (!refused) end();
    });
    client.once('close', end);
    runtime.write(upgrade.opening);
    runtime.pipe(client);
    client.pipe(runtime);
  }

  /** Every pair of `key`'s ended (its port closes, or the platform stops). */
  closeAll(key: string): void {
    for (const client of [...(this.open.get(key) ?? [])]) client.destroy();
  }

  /** Pairs open for `key`. */
  count(key: string): number {
    return this.open.get(key)?.size ?? 0;
  }
}
