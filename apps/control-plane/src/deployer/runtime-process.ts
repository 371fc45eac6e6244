import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { get } from 'node:http';
import { createInterface } from 'node:readline';
import { cannotStartReasonOf } from '#libs/config';
import { RUNTIME_SCRIPT } from '../platform-paths.js';
import { EXTRA_CERTIFICATES } from '../isolation/extra-certificates.js';
import { outOfMemory, type Jailed } from '../isolation/jailer.js';
import type { OsIdentity } from '../isolation/os-identities.js';
import { connectionTo, type RuntimeEndpoint } from './runtime-forwarding.js';

const STOP_GRACE_MS = 15_000;
/** How long an exited runtime's last output is waited for (a grandchild may hold the pipe). */
const LAST_OUTPUT_MS = 2_000;
const EARLY_LINES = 200;

export type RuntimeLaunch = {
  readonly revisionId: string;
  readonly port: number;
  /** What the runtime needs beyond the base environment: its application, port, secrets. */
  readonly env: Readonly<Record<string, string>>;
  /** The OS user and group a spare drops to before it loads the application (unjailed only). */
  readonly identity: OsIdentity | undefined;
  readonly onLine: (line: string) => void;
};

/** The little of the control plane's environment a runtime inherits. */
function baseEnvironment(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of ['PATH', 'HOME', 'LANG', 'TZ', EXTRA_CERTIFICATES]) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}

/** The command line of an agent runtime, with its V8 heap limit when it runs within one. */
export function runtimeCommand(heapMegabytes?: number): readonly string[] {
  const heap = heapMegabytes === undefined ? [] : [`--max-old-space-size=${heapMegabytes}`];
  return [process.execPath, ...heap, RUNTIME_SCRIPT];
}

/**
 * An agent runtime as a child process. Unjailed, it starts as a spare, with the platform loaded
 * but no application; jailed, it starts for one deployment, in its jail and as its user. Either
 * way it gets its application, port and secrets on stdin when a revision takes it. Its stdin
 * stays open: when the control plane dies, even by SIGKILL, the pipe closes and the runtime stops
 * by itself (a jail also ends with its parent).
 */
export class RuntimeProcess {
  private readonly child: ChildProcess;
  private assigned: RuntimeLaunch | undefined;
  private readonly early: string[] = [];
  readonly exited: Promise<void>;
  /** Resolves once its output has been read to the end. */
  private readonly outputEnded: Promise<void>;
  /** Why it could not start, as it said on its way out. */
  private cannotStart: string | undefined;
  /** Whether the kernel ended it for want of memory, read as it exited. */
  private endedOutOfMemory: Promise<boolean> | undefined;
  /** The Unix socket a jailed runtime serves on, once claimed (see RuntimeInbound). */
  private servedSocket: string | undefined;

  constructor(private readonly jailed?: Jailed) {
    const [command = process.execPath, ...args] = jailed?.argv ?? runtimeCommand();
    this.child = spawn(command, args, {
      env: { ...baseEnvironment(), BERTH_AWAIT_ASSIGNMENT: 'true', BERTH_EXIT_WITH_PARENT: 'true' },
      stdio: ['pipe', 'pipe', 'pipe', ...(jailed?.extraPipes ?? [])],
      // A process group of its own: what the application starts is ended with it.
      detached: true,
    });
    jailed?.started(this.child).catch((error: unknown) => {
      this.cannotStart = `The runtime could not start in its jail: ${(error as Error).message}`;
      this.killGroup();
    });
    this.child.stdin?.on('error', () => undefined);
    this.outputEnded = once(this.child, 'close').then(
      () => undefined,
      () => undefined,
    );
    for (const stream of [this.child.stdout, this.child.stderr]) {
      if (stream)
        createInterface({ input: stream }).on('line', (line) => {
          this.line(line);
        });
    }
    this.exited = new Promise((resolve) => {
      if (this.child.exitCode !== null) resolve();
      else
        this.child.once('exit', () => {
          this.killGroup();
          // Read before the group goes: removing it takes its memory events with it.
          const jailed = this.jailed;
          this.endedOutOfMemory = jailed?.ranOutOfMemory().then(async (ended) => {
            await jailed.release();
            return ended;
          });
          resolve();
        });
    });
  }

  /** Whether the kernel ended it at its jail's memory limit; the log line that says so. */
  async outOfMemory(): Promise<string | undefined> {
    if (!this.jailed) return undefined;
    if (!(await (this.endedOutOfMemory ?? this.jailed.ranOutOfMemory()))) return undefined;
    return outOfMemory('The runtime', this.jailed.limits);
  }

  /** Puts the spare to work for one revision. */
  assign(launch: RuntimeLaunch): void {
    if (this.assigned) throw new Error('This runtime process already serves a revision');
    this.assigned = launch;
    for (const line of this.early.splice(0)) launch.onLine(line);
    // A jailed runtime already runs as the deployment's user.
    const identity = this.jailed ? undefined : launch.identity;
    this.child.stdin?.write(`${JSON.stringify({ env: launch.env, identity })}\n`);
  }

  get revisionId(): string {
    return this.launch.revisionId;
  }

  get port(): number {
    return this.launch.port;
  }

  /** Where it is reached: its socket when jailed with a network of its own, else its port. */
  get endpoint(): RuntimeEndpoint {
    return this.servedSocket ?? this.port;
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
      if (!this.running) throw new Error(await this.whyNotStarted());
      const endpoint = await this.reachableEndpoint();
      if (endpoint !== undefined && (await answersOk(endpoint))) return;
      await Promise.race([this.exited, new Promise((resolve) => setTimeout(resolve, 25))]);
    }
    throw new Error(`The runtime did not answer GET /ok within ${Math.round(timeoutMs / 1000)} s`);
  }

  /** Its port, or its socket once it listens on it; undefined until then. */
  private async reachableEndpoint(): Promise<RuntimeEndpoint | undefined> {
    const inbound = this.jailed?.inbound;
    if (!inbound) return this.port;
    this.servedSocket ??= await inbound.claim();
    return this.servedSocket;
  }

  /** What the runtime said was why it could not start, or how it exited. */
  private async whyNotStarted(): Promise<string> {
    await Promise.race([
      this.outputEnded,
      new Promise((resolve) => setTimeout(resolve, LAST_OUTPUT_MS).unref()),
    ]);
    return this.cannotStart ?? `The runtime ${this.describeExit()} before it was ready`;
  }

  /**
   * Asks it to stop (its runs go back to the queue), then SIGKILL after a grace period. A jail
   * passes no signal on, so a jailed runtime is asked by closing its stdin.
   */
  async stop(): Promise<void> {
    if (!this.running) return;
    const exited = once(this.child, 'exit');
    if (this.jailed) this.child.stdin?.end();
    else this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), STOP_GRACE_MS);
    await exited;
    clearTimeout(timer);
    this.killGroup();
  }

  /** Whatever the application left running in the runtime's process group. */
  private killGroup(): void {
    try {
      if (this.child.pid) process.kill(-this.child.pid, 'SIGKILL');
    } catch {
      // The group is empty.
    }
  }

  private get launch(): RuntimeLaunch {
    if (!this.assigned) throw new Error('This runtime process has no revision yet');
    return this.assigned;
  }

  private line(line: string): void {
    const cannotStart = cannotStartReasonOf(line);
    if (cannotStart !== undefined) {
      this.cannotStart = cannotStart;
      return;
    }
    if (this.assigned) this.assigned.onLine(line);
    else if (this.early.length < EARLY_LINES) this.early.push(line);
  }
}

/** Whether GET /ok answers 2xx within 2 s. */
function answersOk(endpoint: RuntimeEndpoint): Promise<boolean> {
  return new Promise((resolve) => {
    const options = { ...connectionTo(endpoint), path: '/ok', timeout: 2_000, agent: false };
    const request = get(options, (answer) => {
      answer.resume();
      const status = answer.statusCode ?? 0;
      resolve(status >= 200 && status < 300);
    });
    request.on('timeout', () => request.destroy());
    request.on('error', () => {
      resolve(false);
    });
  });
}

/** Keeps one runtime process started ahead of need, so a deploy skips the platform's start-up. */
export class SpareRuntimes {
  private spare: RuntimeProcess | undefined;
  private closed = false;

  start(): void {
    this.spare ??= new RuntimeProcess();
  }

  /** A started spare (a new one when the spare died), and the next spare begins to start. */
  take(): RuntimeProcess {
    const spare = this.spare?.running ? this.spare : new RuntimeProcess();
    this.spare = this.closed ? undefined : new RuntimeProcess();
    return spare;
  }

  async stop(): Promise<void> {
    this.closed = true;
    await this.spare?.stop();
    this.spare = undefined;
  }
}
