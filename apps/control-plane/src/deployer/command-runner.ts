import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { outOfMemory, type Jailed } from '../isolation/jailer.js';
import type { OsIdentity } from '../isolation/os-identities.js';
import type { CommandRegistry } from './command-registry.js';

export type CommandOutcome =
  | { ok: true }
  | {
      ok: false;
      reason: string;
      /** Its jail could not be made: nothing of it ran. */ notStarted?: true;
    };

export interface CommandOptions {
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  readonly onLine: (line: string) => void;
  readonly signal?: AbortSignal;
  /** Where the command's process group is recorded while it runs. */
  readonly registry?: CommandRegistry;
  /** The OS user and group to run as (with no supplementary groups and umask 077). */
  readonly identity?: OsIdentity;
  /** Puts the command in the deployment's jail (see Jailer), which runs it as its user. */
  readonly jail?: (command: readonly string[]) => Promise<Jailed>;
}

/**
 * Runs one shell command in its own process group (in its jail, when given one: then every
 * process it starts ends with it), streaming its output line by line; a timeout or an abort ends
 * the whole group.
 */
export async function runCommand(
  command: string,
  options: CommandOptions,
): Promise<CommandOutcome> {
  if (!options.jail)
    return runSpawned(['/bin/sh', '-c', shellOf(command, options)], command, options);
  for (let attempt = 1; ; attempt += 1) {
    const jailed = await options.jail(['/bin/sh', '-c', command]);
    try {
      const outcome = await runSpawned(jailed.argv, command, options, jailed);
      if (outcome.ok) return outcome;
      // The command waits for its jail's network before it starts: a setup that failed ran
      // nothing of it, and a momentary failure is tried again in a new jail.
      if (outcome.notStarted && attempt < JAIL_START_ATTEMPTS && !options.signal?.aborted) {
        await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
        continue;
      }
      if (!(await jailed.ranOutOfMemory())) return outcome;
      return { ok: false, reason: outOfMemory(`\`${command}\``, jailed.limits) };
    } finally {
      await jailed.release();
    }
  }
}

const JAIL_START_ATTEMPTS = 3;

const shellOf = (command: string, options: CommandOptions): string =>
  options.identity ? `umask 077\n${command}` : command;

function runSpawned(
  argv: readonly string[],
  command: string,
  options: CommandOptions,
  jail?: Jailed,
): Promise<CommandOutcome> {
  return new Promise((resolve) => {
    const jailed = jail !== undefined;
    const child = spawn(argv[0] ?? '/bin/sh', argv.slice(1), {
      cwd: jailed ? '/' : options.cwd,
      env: options.env,
      uid: jailed ? undefined : options.identity?.uid,
      gid: jailed ? undefined : options.identity?.gid,
      stdio: ['ignore', 'pipe', 'pipe', ...(jail?.extraPipes ?? [])],
      detached: true,
    });
    if (child.pid) options.registry?.record(child.pid);
    for (const stream of [child.stdout, child.stderr]) {
      if (stream) createInterface({ input: stream }).on('line', options.onLine);
    }
    let stopped: string | undefined;
    let notStarted = false;
    const stop = (reason: string): void => {
      stopped ??= reason;
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    };
    const timer = setTimeout(() => {
      stop(`timed out after ${Math.round(options.timeoutMs / 1000)} s`);
    }, options.timeoutMs);
    const onAbort = (): void => {
      const reason: unknown = options.signal?.reason;
      stop(
        reason instanceof Error
          ? `stopped: ${reason.message}`
          : 'stopped because the control plane is shutting down',
      );
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    // Aborted before it started (a build cancelled between two commands): it ends at once.
    if (options.signal?.aborted) onAbort();
    jail?.started(child).catch((error: unknown) => {
      notStarted = stopped === undefined;
      stop(`could not start in its jail: ${(error as Error).message}`);
    });
    child.once('error', (error) => {
      stop(error.message);
    });
    child.once('close', (code, signal) => {
      if (child.pid) options.registry?.forget(child.pid);
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      if (stopped) {
        resolve({
          ok: false,
          reason: `\`${command}\` ${stopped}`,
          ...(notStarted ? { notStarted: true as const } : {}),
        });
      } else if (code === 0) resolve({ ok: true });
      else resolve({ ok: false, reason: `\`${command}\` exited with ${signal ?? `code ${code}`}` });
    });
  });
}
