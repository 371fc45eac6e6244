import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { CANNOT_START_EXIT_CODE } from '#libs/config';
import { childLogEnvironment } from '#libs/logging';

export interface ChildSpec {
  readonly name: string;
  readonly script: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** When it exits, everything stops (the control plane). Others are started again. */
  readonly essential: boolean;
}

const FIRST_RESTART_DELAY_MS = 1_000;
const MAX_RESTART_DELAY_MS = 30_000;
/** A child that ran this long before it exited is restarted without delay. */
const HEALTHY_RUN_MS = 60_000;

/**
 * Runs Berth's processes as children and prefixes their output with their name. When an
 * essential child exits, or this process is asked to stop, it stops them all; any other child
 * that exits is logged and started again, after a delay that doubles while it keeps failing. A
 * child that says it cannot start until something is changed (CANNOT_START_EXIT_CODE, after
 * printing what to change) is not started again: everything stops.
 */
export class Supervisor {
  private readonly children = new Map<string, ChildProcess>();
  private readonly restarts = new Map<string, NodeJS.Timeout>();
  private stopping: Promise<void> | undefined;

  /** `afterChildren` runs once every child has exited, before this process exits. */
  constructor(private readonly afterChildren: () => Promise<void> = () => Promise.resolve()) {}

  start(spec: ChildSpec, restartDelayMs = FIRST_RESTART_DELAY_MS): ChildProcess {
    // Its output comes here through a pipe: this process's terminal decides its format.
    const child = spawn(process.execPath, [spec.script], {
      env: { ...spec.env, ...childLogEnvironment(spec.env, process.stdout.isTTY) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const startedAt = Date.now();
    this.children.set(spec.name, child);
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream }).on('line', (line) => {
        process.stdout.write(`[${spec.name}] ${line}\n`);
      });
    }
    child.once('exit', (code, signal) => {
      this.children.delete(spec.name);
      if (this.stopping) return;
      const how = signal ?? code ?? 'unknown';
      if (code === CANNOT_START_EXIT_CODE) {
        void this.stop(1);
        return;
      }
      if (spec.essential) {
        process.stderr.write(`[berth] ${spec.name} exited (${how}); stopping\n`);
        void this.stop(code ?? 1);
        return;
      }
      const delay =
        Date.now() - startedAt >= HEALTHY_RUN_MS ? FIRST_RESTART_DELAY_MS : restartDelayMs;
      process.stderr.write(
        `[berth] ${spec.name} exited (${how}); restarting it in ${Math.round(delay / 1000)} s\n`,
      );
      this.restarts.set(
        spec.name,
        setTimeout(() => {
          this.restarts.delete(spec.name);
          if (!this.stopping) this.start(spec, Math.min(delay * 2, MAX_RESTART_DELAY_MS));
        }, delay),
      );
    });
    return child;
  }

  /** Stops every child (SIGTERM, then SIGKILL after a grace period), then what they used, and exits. */
  stop(exitCode = 0): Promise<void> {
    this.stopping ??= (async () => {
      for (const timer of this.restarts.values()) clearTimeout(timer);
      await Promise.all([...this.children.values()].map((child) => stopChild(child)));
      await this.afterChildren().catch((error: unknown) => {
        process.stderr.write(`[berth] ${error instanceof Error ? error.message : String(error)}\n`);
      });
      process.exit(exitCode);
    })();
    return this.stopping;
  }

  /**
   * Waits until GET /ok answers at `url`, through the restarts of the child that serves it. When
   * a child stops everything (it cannot start, or it is essential and exited), this never
   * resolves: the process exits once the children have stopped.
   */
  async untilServing(url: string, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (this.stopping) await new Promise(() => undefined);
      if (await answersOk(url)) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`${url}/ok did not answer within ${timeoutMs} ms`);
  }
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

function answersOk(url: string): Promise<boolean> {
  return fetch(`${url}/ok`).then(
    (response) => response.ok,
    () => false,
  );
}
