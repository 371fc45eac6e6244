import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import type { GateReply, GateRequest } from './database-gate-main.js';
import type { DatabaseGateOptions } from './database-gate.js';

const GATE_SCRIPT = fileURLToPath(new URL('./database-gate-main.js', import.meta.url));
const FIRST_RESTART_MS = 100;
const LONGEST_RESTART_MS = 5_000;
/** How long the gate process is given to end once let go of, before it is killed. */
const STOP_GRACE_MS = 2_000;

type Pending = { resolve: () => void; reject: (error: Error) => void };

/**
 * Every deployment's database gate, in one process of its own (database-gate-main.ts) that the
 * control plane starts and supervises: a gate process that ends is started again, with backoff,
 * and reopens every gate it held (a runtime's connection in flight is lost; its pool reconnects).
 */
export class DatabaseGates {
  private child: ChildProcess | undefined;
  private readonly gates = new Map<string, DatabaseGateOptions>();
  private readonly pending = new Map<string, Pending[]>();
  private restarts = 0;
  private closed = false;

  constructor(private readonly onError: (error: Error) => void = () => undefined) {}

  /** Opens (or reopens) the gate of one deployment. */
  open(id: string, options: DatabaseGateOptions): Promise<void> {
    this.gates.set(id, options);
    return this.request({ kind: 'open', id, options });
  }

  async close(id: string): Promise<void> {
    if (!this.gates.delete(id)) return;
    await this.request({ kind: 'close', id });
  }

  /** At shutdown: the gate process ends, and with it every gate and its connections. */
  async stop(): Promise<void> {
    this.closed = true;
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.disconnect();
    const killed = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    await exited;
    clearTimeout(killed);
  }

  /** The gate process's pid, for tests and the log; undefined when none runs. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  private request(request: GateRequest): Promise<void> {
    const child = this.running();
    return new Promise<void>((resolve, reject) => {
      const waiting = this.pending.get(request.id) ?? [];
      waiting.push({ resolve, reject });
      this.pending.set(request.id, waiting);
      child.send(request);
    });
  }

  private running(): ChildProcess {
    if (this.closed) throw new Error('The database gates are closed');
    if (this.child) return this.child;
    const child = fork(GATE_SCRIPT, [], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      execArgv: [],
      serialization: 'json',
    });
    child.on('message', (reply: GateReply) => {
      this.restarts = 0;
      const waiting = this.pending.get(reply.id);
      const next = waiting?.shift();
      if (waiting?.length === 0) this.pending.delete(reply.id);
      if (reply.kind === 'failed') next?.reject(new Error(reply.message));
      else next?.resolve();
    });
    child.on('exit', (code, signal) => {
      if (this.child === child) this.child = undefined;
      const lost = new Error(`The database gate process ended (${signal ?? `code ${code}`})`);
      for (const waiting of this.pending.values()) for (const p of waiting) p.reject(lost);
      this.pending.clear();
      if (this.closed) return;
      this.onError(lost);
      this.restartLater();
    });
    this.child = child;
    return child;
  }

  /** Starts the gate process again and reopens every gate, after a delay that doubles. */
  private restartLater(): void {
    const delayMs = Math.min(FIRST_RESTART_MS * 2 ** this.restarts, LONGEST_RESTART_MS);
    this.restarts += 1;
    setTimeout(() => {
      if (this.closed || this.child) return;
      for (const [id, options] of this.gates) {
        this.request({ kind: 'open', id, options }).catch((error: unknown) => {
          this.onError(error instanceof Error ? error : new Error(String(error)));
        });
      }
    }, delayMs).unref();
  }
}
