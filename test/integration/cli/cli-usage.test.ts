import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from '@jest/globals';

const CLI = resolve('dist/apps/cli/src/main.js');

/** The built CLI, run to its end with no terminal. */
function berth(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('the berth command line, before any command runs', () => {
  it("prints its version, package.json's, with --version and -v", () => {
    const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    for (const flag of ['--version', '-v']) {
      const result = berth(flag);
      expect(result).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
    }
  });

  it("answers an unknown option, or arguments it does not take, with the command's own usage line, and exit code 2", () => {
    const cases: [string[], string, string][] = [
      [['--nope'], 'unknown option --nope', 'Usage: berth <command> [options]'],
      [['deploy', '--nope'], 'unknown option --nope', 'Usage: berth deploy [dir] [options]'],
      [['dev', '--prot', '3'], 'unknown option --prot', 'Usage: berth dev [dir] [--port P]'],
      [['up', '-x'], 'unknown option -x', 'Usage: berth up'],
      [['deploy', 'logs', '--folow'], 'unknown option --folow', 'Usage: berth deploy logs'],
      [
        ['deploy', 'list', '--name-contains'],
        'option --name-contains needs a value',
        'Usage: berth deploy list',
      ],
      [
        ['deploy', 'revisions', 'x', '--limit'],
        'option --limit needs a value',
        'Usage: berth deploy revisions',
      ],
      [['deploy', 'delete', '--yes'], 'unknown option --yes', 'Usage: berth deploy delete'],
      [['build-image', '--json=1'], 'unknown option --json', 'Usage: berth build-image'],
      [['deploy', 'logs', 'a', 'b'], 'unexpected argument b', 'Usage: berth deploy logs'],
      [['deploy', 'list', 'x'], 'unexpected argument x', 'Usage: berth deploy list'],
      [['deploy', 'delete'], 'name the deployment to delete', 'Usage: berth deploy delete'],
    ];
    for (const [args, said, usage] of cases) {
      const result = berth(...args);
      expect({ args, code: result.code, stdout: result.stdout }).toEqual({
        args,
        code: 2,
        stdout: '',
      });
      const [first, second, ...more] = result.stderr.trimEnd().split('\n');
      expect(first).toBe(`berth: ${said}`);
      expect(second?.startsWith(usage)).toBe(true);
      expect(more).toEqual([]);
      expect(result.stderr).not.toMatch(/To specify a positional argument|ERR_PARSE_ARGS/);
    }
    // The cluster listener is a process of its own, which says so in its own name.
    const listener = berth('listener', '--nope');
    expect(listener.code).toBe(2);
    expect(listener.stderr.trimEnd().split('\n')).toEqual([
      'berth listener: unknown option --nope',
      'Usage: berth listener [options]',
    ]);
  });
});
