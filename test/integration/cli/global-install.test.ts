import { afterAll, describe, expect, it, jest } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

jest.setTimeout(120_000);

const run = promisify(execFile);

describe('berth installed from the checkout (docs/cli.md), used from any directory', () => {
  let work: string;
  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
  });

  it('links the checkout as the berth command, which serves an application directory elsewhere', async () => {
    work = await mkdtemp(join(tmpdir(), 'berth-global-'));
    const prefix = join(work, 'prefix');
    // As documented, with a prefix of its own so that the machine's global packages are untouched.
    await run('npm', ['install', '--global', '--ignore-scripts', '--prefix', prefix, '.'], {
      cwd: resolve('.'),
    });
    const app = join(work, 'my-app');
    await run('mkdir', ['-p', app]);
    await writeFile(join(app, 'langgraph.json'), JSON.stringify({ graphs: {} }));
    const { stdout } = await run(join(prefix, 'bin', 'berth'), ['deploy', '--help'], { cwd: app });
    expect(stdout).toContain('Usage: berth deploy');
    const help = await run(join(prefix, 'bin', 'berth'), ['--help'], { cwd: app });
    expect(help.stdout).toContain('dev     serve one application');
  });
});
