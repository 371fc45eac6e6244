import { readdir, readFile, readlink } from 'node:fs/promises';

export type HostProcess = { readonly pid: number; readonly command: string };

/**
 * The host's processes working in a deployment's directories (their current directory holds its
 * id): its builds and its runtime, whatever pid namespace they run in.
 */
export async function processesIn(deploymentId: string): Promise<HostProcess[]> {
  const found: HostProcess[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const cwd = await readlink(`/proc/${entry}/cwd`).catch(() => '');
    if (!cwd.includes(deploymentId)) continue;
    const command = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    found.push({ pid: Number(entry), command: command.split('\0').join(' ').trim() });
  }
  return found;
}

/** Waits until no process of the deployment matches (the caller bounds the wait). */
export async function untilNoneLeft(
  deploymentId: string,
  matches: (process: HostProcess) => boolean = () => true,
): Promise<HostProcess[]> {
  for (;;) {
    const left = (await processesIn(deploymentId)).filter(matches);
    if (left.length === 0) return left;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
