import { afterEach, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultDataDir, platformRecordsDir } from './berth-locations.js';

const made: string[] = [];
afterEach(async () => {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('where Berth keeps its own data, whatever the current directory', () => {
  it("is the installation's .berth where the installation is writable", async () => {
    const installation = await mkdtemp(join(tmpdir(), 'berth-install-'));
    made.push(installation);
    expect(defaultDataDir({ HOME: '/home/me' }, installation)).toBe(join(installation, '.berth'));
  });

  it("is the user's data directory where it cannot be written", () => {
    const readOnly = '/nonexistent/berth-installation';
    expect(defaultDataDir({ HOME: '/home/me' }, readOnly)).toBe('/home/me/.local/share/berth');
    expect(defaultDataDir({ HOME: '/home/me', XDG_DATA_HOME: '/data' }, readOnly)).toBe(
      '/data/berth',
    );
  });

  it('records running platforms in the state directory', () => {
    expect(platformRecordsDir({ HOME: '/home/me' })).toBe('/home/me/.local/state/berth');
    expect(platformRecordsDir({ HOME: '/home/me', XDG_STATE_HOME: '/state' })).toBe('/state/berth');
  });
});
