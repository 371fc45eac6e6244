import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { OsIdentity } from '../isolation/os-identities.js';
import type { CommandRegistry } from './command-registry.js';

export type CommandOutcome = { ok: true } | { ok: false; reason: string };

export interface CommandOptions {
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  readonly onLine: (line: string) => void;
  readonly signal?: AbortSignal;
  /** Where the command's process group is recorded while it runs. */
  readonly registry?: CommandRegistry;
  /** The OS user and group to run as (with no supplementary groups and umask 007). */
  readonly identity?: OsIdentity;
}

/**
 * Runs one shell command in its own process group, streaming its output line by line; a timeout
 * or an abort ends the whole group.
 */
export function runCommand(command: string, options: CommandOptions): Promise<CommandOutcome> {
  return new Promise((resolve) => {
    const script = options.identity ? `umask 007\n${command}` : command;
    const child = spawn('/bin/sh', ['-c', script], {
      cwd: options.cwd,
      env: options.env,
      uid: options.identity?.uid,
      gid: options.identity?.gid,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    if (child.pid) options.registry?.record(child.pid);
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream }).on('line', options.onLine);
    }
    let stopped: string | undefined;
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
      stop('stopped because the control plane is shutting down');
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    child.once('error', (error) => {
      stop(error.message);
    });
    child.once('close', (code, signal) => {
      if (child.pid) options.registry?.forget(child.pid);
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      if (stopped) resolve({ ok: false, reason: `\`${command}\` ${stopped}` });
      else if (code === 0) resolve({ ok: true });
      else resolve({ ok: false, reason: `\`${command}\` exited with ${signal ?? `code ${code}`}` });
    });
  });
}
