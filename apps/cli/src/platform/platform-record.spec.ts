import { afterEach, describe, expect, it } from '@jest/globals';
import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  platformAt,
  recordPlatform,
  runningPlatforms,
  type PlatformRecord,
} from './platform-record.js';

const made: string[] = [];
afterEach(async () => {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function recordsDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'berth-records-'));
  made.push(dir);
  return join(dir, 'berth');
}

function platform(pid: number, startedAt: string, port = 8080): PlatformRecord {
  return {
    pid,
    startedAt,
    dataDir: `/srv/berth-${pid}`,
    controlPlaneUrl: `http://127.0.0.1:${port}`,
    runtimeUrl: 'http://127.0.0.1:8123',
    apiKey: `key-${pid}`,
  };
}

describe('the record a running platform leaves for the CLI', () => {
  it('is readable by its user only, found while its process runs, and taken back', async () => {
    const dir = await recordsDir();
    const forget = await recordPlatform(dir, platform(process.pid, '2026-11-28T10:00:00Z'));
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    const [file] = await readdir(dir);
    expect((await stat(join(dir, file ?? ''))).mode & 0o777).toBe(0o600);
    expect(await runningPlatforms(dir)).toEqual([platform(process.pid, '2026-11-28T10:00:00Z')]);
    await forget();
    expect(await runningPlatforms(dir)).toEqual([]);
  });

  it('lists the newest first, and removes the records of platforms that are gone', async () => {
    const dir = await recordsDir();
    await recordPlatform(dir, platform(101, '2026-11-28T09:00:00Z'));
    await recordPlatform(dir, platform(102, '2026-11-28T11:00:00Z'));
    await recordPlatform(dir, platform(103, '2026-11-28T10:00:00Z'));
    const alive = new Set([101, 102]);
    const found = await runningPlatforms(dir, (pid) => Promise.resolve(alive.has(pid)));
    expect(found.map((record) => record.pid)).toEqual([102, 101]);
    expect((await readdir(dir)).sort()).toEqual(['platform-101.json', 'platform-102.json']);
  });

  it('ignores what is not a record: other files, damaged ones, a pid that does not match', async () => {
    const dir = await recordsDir();
    await recordPlatform(dir, platform(101, '2026-11-28T09:00:00Z'));
    await writeFile(join(dir, 'platform-102.json'), '{not json');
    await writeFile(join(dir, 'platform-103.json'), JSON.stringify(platform(104, 'x')));
    await writeFile(join(dir, 'notes.txt'), 'mine');
    const found = await runningPlatforms(dir, () => Promise.resolve(true));
    expect(found.map((record) => record.pid)).toEqual([101]);
    expect((await readdir(dir)).sort()).toEqual(['notes.txt', 'platform-101.json']);
  });

  it('finds the platform at a URL whatever the loopback name or a trailing slash', () => {
    const records = [platform(1, 'a', 8080), platform(2, 'b', 9090)];
    expect(platformAt(records, 'http://localhost:9090/')?.pid).toBe(2);
    expect(platformAt(records, 'http://127.0.0.1:8080')?.pid).toBe(1);
    expect(platformAt(records, 'http://127.0.0.1:7070')).toBeUndefined();
    expect(platformAt(records, 'https://127.0.0.1:8080')).toBeUndefined();
    expect(platformAt(records, 'not a url')).toBeUndefined();
  });
});
