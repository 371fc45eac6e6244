import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';

const GONE_WAIT_MS = 5_000;

/** When a process started, in clock ticks since boot (Linux); undefined if it is gone. */
function startTimeOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/**
 * Whether the group is the one recorded: its leader started when recorded, or its leader is gone
 * and members remain (the system gives no new process a pid still in use as a group id).
 */
function stillOurs(pgid: number, started: string | undefined): boolean {
  const leader = startTimeOf(pgid);
  return leader === undefined ? groupAlive(pgid) : leader === started;
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * The process groups of the commands this control plane runs (builds, installs, clones), one file
 * each in `dir`: a control plane killed with SIGKILL leaves its commands running under PID 1, and
 * the next one ends them before it builds anything. A file holds the owner's pid and the leader's
 * start time, so that a pid the system has given to another process since is never killed.
 */
export class CommandRegistry {
  constructor(private readonly dir: string) {}

  record(pgid: number): void {
    const started = startTimeOf(pgid);
    if (started === undefined) return;
    mkdirSync(this.dir, { recursive: true });
    writeFileSync(join(this.dir, String(pgid)), `${process.pid} ${started}`);
  }

  forget(pgid: number): void {
    rmSync(join(this.dir, String(pgid)), { force: true });
  }

  /** Kills what earlier control planes left running; resolves with how many groups it ended. */
  async killLeftovers(): Promise<number> {
    const entries = await readdir(this.dir).catch(() => [] as string[]);
    let killed = 0;
    for (const entry of entries) {
      const pgid = Number(entry);
      const [owner, started] = (await readFile(join(this.dir, entry), 'utf8')).split(' ');
      if (Number(owner) === process.pid) continue;
      if (Number.isSafeInteger(pgid) && pgid > 1 && stillOurs(pgid, started)) {
        try {
          process.kill(-pgid, 'SIGKILL');
          killed += 1;
        } catch {
          // Gone meanwhile.
        }
        await gone(pgid);
      }
      await rm(join(this.dir, entry), { force: true });
    }
    return killed;
  }
}

async function gone(pgid: number): Promise<void> {
  const deadline = Date.now() + GONE_WAIT_MS;
  while (groupAlive(pgid) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
