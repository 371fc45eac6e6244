import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { GateReply, GateRequest } from './database-gate-main.js';
import type { DatabaseGateOptions } from './database-gate.js';
import { forkPlatformChild, letGo } from './platform-child.js';

const GATE_SCRIPT = fileURLToPath(new URL('./database-gate-main.js', import.meta.url));
const FIRST_RESTART_MS = 100;
const LONGEST_RESTART_MS = 5_000;
/** How long closing one gate may take before the gate process is taken for stuck. */
const CLOSE_BOUND_MS = 5_000;

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

  /** `script`: the gate process's (tests give one of their own). */
  constructor(
    private readonly onError: (error: Error) => void = () => undefined,
    private readonly script: string = GATE_SCRIPT,
    private readonly closeBoundMs: number = CLOSE_BOUND_MS,
  ) {}

  /** Opens (or reopens) the gate of one deployment. */
  open(id: string, options: DatabaseGateOptions): Promise<void> {
    this.gates.set(id, options);
    return this.request({ kind: 'open', id, options });
  }

  /**
   * Closes one deployment's gate, its connections cut. Bounded: a gate process that does not
   * answer in time is killed (and started again with the other gates), which closes it too.
   */
  async close(id: string): Promise<void> {
    if (!this.gates.delete(id)) return;
    const child = this.running();
    let timer: NodeJS.Timeout | undefined;
    const answered = this.request({ kind: 'close', id }).then(
      () => true,
      () => true,
    );
    const late = new Promise<false>((resolve) => {
      timer = setTimeout(() => {
        resolve(false);
      }, this.closeBoundMs);
    });
    const inTime = await Promise.race([answered, late]);
    clearTimeout(timer);
    if (inTime) return;
    this.onError(
      new Error(
        `The database gate process did not close a gate within ${this.closeBoundMs} ms: ` +
          'it is killed and started again',
      ),
    );
    child.kill('SIGKILL');
  }

  /** At shutdown: the gate process ends, and with it every gate and its connections. */
  async stop(): Promise<void> {
    this.closed = true;
    const child = this.child;
    this.child = undefined;
    await letGo(child);
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
    const child = forkPlatformChild(this.script);
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
