import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** The agent runtime's built entry point, beside the control plane's in dist/. */
const RUNTIME_SCRIPT = fileURLToPath(
  new URL('../../../agent-runtime/src/main.js', import.meta.url),
);
const STOP_GRACE_MS = 15_000;

export type RuntimeLaunch = {
  readonly revisionId: string;
  readonly port: number;
  readonly env: Readonly<Record<string, string>>;
  readonly onLine: (line: string) => void;
};

/**
 * One revision's agent runtime as a child process. Its stdin is a pipe it watches: when the
 * control plane dies, even by SIGKILL, the pipe closes and the runtime stops by itself.
 */
export class RuntimeProcess {
  private readonly child: ChildProcess;
  readonly exited: Promise<void>;

  constructor(readonly launch: RuntimeLaunch) {
    this.child = spawn(process.execPath, [RUNTIME_SCRIPT], {
      env: { ...launch.env, BERTH_EXIT_WITH_PARENT: 'true' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child.stdin?.on('error', () => undefined);
    for (const stream of [this.child.stdout, this.child.stderr]) {
      if (stream) createInterface({ input: stream }).on('line', launch.onLine);
    }
    this.exited = new Promise((resolve) => {
      if (this.child.exitCode !== null) resolve();
      else
        this.child.once('exit', () => {
          resolve();
        });
    });
  }

  get revisionId(): string {
    return this.launch.revisionId;
  }

  get port(): number {
    return this.launch.port;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  describeExit(): string {
    return `exited with ${this.child.signalCode ?? `code ${this.child.exitCode}`}`;
  }

  /** Resolves when GET /ok answers; fails when the process exits first or time runs out. */
  async ready(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (!this.running) throw new Error(`The runtime ${this.describeExit()} before it was ready`);
      const ok = await fetch(`http://127.0.0.1:${this.port}/ok`, {
        signal: AbortSignal.timeout(2_000),
      }).then(
        (response) => response.ok,
        () => false,
      );
      if (ok) return;
      await Promise.race([this.exited, new Promise((resolve) => setTimeout(resolve, 100))]);
    }
    throw new Error(`The runtime did not answer GET /ok within ${Math.round(timeoutMs / 1000)} s`);
  }

  /** SIGTERM (its runs go back to the queue), then SIGKILL after a grace period. */
  async stop(): Promise<void> {
    if (!this.running) return;
    const exited = once(this.child, 'exit');
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), STOP_GRACE_MS);
    await exited;
    clearTimeout(timer);
  }
}
