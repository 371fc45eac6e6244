import { execFileSync } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';

/** Clock ticks per second of /proc/<pid>/stat's times. */
const TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;

interface ProcStat {
  readonly pid: number;
  readonly ppid: number;
  /** User plus system CPU, in seconds. */
  readonly cpuSeconds: number;
}

/** /proc/<pid>/stat: the fields after the command's closing parenthesis (state is field 3). */
function parseStat(pid: number, text: string): ProcStat | undefined {
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const ppid = Number(fields[1]);
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  if (!Number.isFinite(ppid) || !Number.isFinite(utime) || !Number.isFinite(stime))
    return undefined;
  return { pid, ppid, cpuSeconds: (utime + stime) / TICKS_PER_SECOND };
}

async function allStats(): Promise<ProcStat[]> {
  const pids = (await readdir('/proc')).filter((name) => /^\d+$/.test(name)).map(Number);
  const stats = await Promise.all(
    pids.map((pid) =>
      readFile(`/proc/${pid}/stat`, 'utf8').then(
        (text) => parseStat(pid, text),
        () => undefined,
      ),
    ),
  );
  return stats.filter((stat) => stat !== undefined);
}

/** The process and every descendant of it alive now. */
async function tree(rootPid: number): Promise<ProcStat[]> {
  const stats = await allStats();
  const members = new Set([rootPid]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const stat of stats) {
      if (!members.has(stat.pid) && members.has(stat.ppid)) {
        members.add(stat.pid);
        grew = true;
      }
    }
  }
  return stats.filter((stat) => members.has(stat.pid));
}

async function residentBytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const kib = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status)?.[1];
  return kib === undefined ? 0 : Number(kib) * 1024;
}

export interface TreeUsage {
  readonly processes: number;
  readonly cpuSeconds: number;
  readonly residentBytes: number;
}

/** CPU seconds so far and resident size now, summed over a process and its descendants. */
export async function treeUsage(rootPid: number): Promise<TreeUsage> {
  const members = await tree(rootPid);
  const resident = await Promise.all(members.map((member) => residentBytes(member.pid)));
  return {
    processes: members.length,
    cpuSeconds: members.reduce((sum, member) => sum + member.cpuSeconds, 0),
    residentBytes: resident.reduce((sum, bytes) => sum + bytes, 0),
  };
}
