import { access, mkdir, readdir, readFile, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { errorCode } from './tenant-tree.js';

/** What one jailed process tree may use at most. */
export type ResourceLimits = {
  readonly memoryBytes: number;
  /** Processes and threads together. */
  readonly pids: number;
};

const ROOT = '/sys/fs/cgroup';
const PARENT = 'berth';
const REMOVE_ATTEMPTS = 40;

type Layout = { kind: 'v1'; memory: string; pids: string } | { kind: 'v2'; root: string };

async function writable(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

/**
 * Control groups of the kernel, one per jailed build or runtime, under `berth/` of the memory and
 * pids hierarchies (cgroup v1) or of the unified one (v2): a tenant that takes all its memory is
 * ended by the kernel's OOM killer inside its own group, a fork bomb stops at its own count.
 */
export class ControlGroups {
  private constructor(
    private readonly layout: Layout,
    private readonly instance: string,
  ) {}

  /** The hierarchies found writable here, or the reason there are none. */
  static async open(instance: string): Promise<ControlGroups | string> {
    const controllers = await readFile(join(ROOT, 'cgroup.controllers'), 'utf8').catch(() => '');
    if (controllers.includes('memory') && controllers.includes('pids')) {
      const layout: Layout = { kind: 'v2', root: join(ROOT, PARENT) };
      const groups = new ControlGroups(layout, instance);
      return (await groups.probe()) ?? (await groups.removeLeftovers());
    }
    const memory = join(ROOT, 'memory');
    const pids = join(ROOT, 'pids');
    if (
      !(await writable(join(memory, 'cgroup.procs'))) ||
      !(await writable(join(pids, 'cgroup.procs')))
    ) {
      return 'no writable memory and pids control groups (cgroup v1 or v2) here';
    }
    const groups = new ControlGroups(
      { kind: 'v1', memory: join(memory, PARENT), pids: join(pids, PARENT) },
      instance,
    );
    return (await groups.probe()) ?? (await groups.removeLeftovers());
  }

  /** Makes the group of one jail and sets its limits; returns the directories to join. */
  async create(name: string, limits: ResourceLimits): Promise<string[]> {
    const dirs = this.dirsOf(name);
    for (const dir of dirs) await mkdir(dir, { recursive: true });
    if (this.layout.kind === 'v1') {
      const [memory, pids] = dirs as [string, string];
      await writeFile(join(memory, 'memory.limit_in_bytes'), String(limits.memoryBytes));
      await writeFile(join(pids, 'pids.max'), String(limits.pids));
    } else {
      const [dir] = dirs as [string];
      await writeFile(join(dir, 'memory.max'), String(limits.memoryBytes));
      await writeFile(join(dir, 'memory.swap.max'), '0').catch(() => undefined);
      await writeFile(join(dir, 'pids.max'), String(limits.pids));
    }
    return dirs;
  }

  /** Whether the kernel ended a process of the group for want of memory. */
  async ranOutOfMemory(name: string): Promise<boolean> {
    const [dir] = this.dirsOf(name);
    if (!dir) return false;
    const file = this.layout.kind === 'v1' ? 'memory.oom_control' : 'memory.events';
    const text = await readFile(join(dir, file), 'utf8').catch(() => '');
    return /oom_kill [1-9]/.test(text);
  }

  /**
   * Removes the group once its processes are gone: the kernel reaps a jail's last processes a
   * moment after its leader exits, so a busy group is tried again for a while, then left.
   */
  async remove(name: string): Promise<void> {
    for (const dir of this.dirsOf(name)) {
      for (let attempt = 0; attempt < REMOVE_ATTEMPTS; attempt++) {
        const removed = await rmdir(dir).then(
          () => true,
          (error: unknown) => errorCode(error) === 'ENOENT',
        );
        if (removed) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  }

  /**
   * Removes this instance's groups whose processes are gone: at start those an earlier run left
   * (killed before its jails were reaped), at shutdown any a jail left. A group that still has
   * processes refuses to go and stays.
   */
  async removeLeftovers(): Promise<this> {
    const parents =
      this.layout.kind === 'v1' ? [this.layout.memory, this.layout.pids] : [this.layout.root];
    for (const parent of parents) {
      for (const entry of await readdir(parent).catch(() => [] as string[])) {
        if (entry.startsWith(`${this.instance}-`))
          await rmdir(join(parent, entry)).catch(() => undefined);
      }
    }
    return this;
  }

  private dirsOf(name: string): string[] {
    const leaf = `${this.instance}-${name}`;
    return this.layout.kind === 'v1'
      ? [join(this.layout.memory, leaf), join(this.layout.pids, leaf)]
      : [join(this.layout.root, leaf)];
  }

  private async probe(): Promise<string | undefined> {
    try {
      if (this.layout.kind === 'v2') {
        await mkdir(this.layout.root, { recursive: true });
        await writeFile(join(ROOT, 'cgroup.subtree_control'), '+memory +pids').catch(
          () => undefined,
        );
        await writeFile(join(this.layout.root, 'cgroup.subtree_control'), '+memory +pids');
      }
      await this.create('probe', { memoryBytes: 64 * 1024 * 1024, pids: 8 });
      await this.remove('probe');
      return undefined;
    } catch (error) {
      return `control groups cannot be made here: ${(error as Error).message}`;
    }
  }
}
