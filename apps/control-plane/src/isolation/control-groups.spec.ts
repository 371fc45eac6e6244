import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { access, mkdir, rmdir } from 'node:fs/promises';
import { ControlGroups } from './control-groups.js';

const MEMORY = '/sys/fs/cgroup/memory/berth';
const usable = await access('/sys/fs/cgroup/memory/cgroup.procs').then(
  () => process.getuid?.() === 0,
  () => false,
);
if (!usable) console.warn('control-groups: skipped (needs root and cgroup v1 memory here)');
const itWithGroups = usable ? it : it.skip;

const exists = (path: string): Promise<boolean> =>
  access(path).then(
    () => true,
    () => false,
  );

describe('ControlGroups', () => {
  itWithGroups("limits a jail's group, and removes what an earlier run of it left", async () => {
    const instance = randomUUID().slice(0, 8);
    await mkdir(`${MEMORY}/${instance}-left-behind`, { recursive: true });
    await mkdir(`${MEMORY}/other-instance-${instance}`, { recursive: true });
    const groups = await ControlGroups.open(instance);
    if (typeof groups === 'string') throw new Error(groups);
    expect(await exists(`${MEMORY}/${instance}-left-behind`)).toBe(false);
    expect(await exists(`${MEMORY}/other-instance-${instance}`)).toBe(true);

    const [memory] = await groups.create('jail', { memoryBytes: 64 * 1024 * 1024, pids: 16 });
    expect(memory).toBe(`${MEMORY}/${instance}-jail`);
    await groups.remove('jail');
    expect(await exists(`${MEMORY}/${instance}-jail`)).toBe(false);
    await rmdir(`${MEMORY}/other-instance-${instance}`);
  });
});
