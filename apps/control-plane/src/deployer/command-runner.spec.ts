import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCommand, type CommandOptions } from './command-runner.js';

const PATH = process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin';

/** Whether the process no longer runs: gone, or a zombie nobody has reaped yet. */
function isDead(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The state follows the parenthesised command name.
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

/**
 * Resolves once the process has died. A killed process closes its pipes before the kernel marks
 * it dead, so its death may show a moment after the command's outcome: this waits for it, and
 * fails long before a `sleep 30` that was never killed would end by itself.
 */
async function death(pid: number, deadlineMs = 5_000): Promise<void> {
  const giveUp = Date.now() + deadlineMs;
  while (!isDead(pid)) {
    if (Date.now() > giveUp) throw new Error(`process ${pid} still runs`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('runCommand', () => {
  let cwd: string;
  let lines: string[];
  const options = (extra: Partial<CommandOptions> = {}): CommandOptions => ({
    cwd,
    env: { PATH },
    timeoutMs: 20_000,
    onLine: (line) => lines.push(line),
    ...extra,
  });

  beforeEach(async () => {
    cwd = await mkdtemp(join(tmpdir(), 'berth-command-runner-'));
    lines = [];
  });

  afterEach(async () => {
    await rm(cwd, { recursive: true, force: true });
  });

  it('succeeds when the command exits with 0', async () => {
    await expect(runCommand('true', options())).resolves.toEqual({ ok: true });
  });

  it('runs in the given directory', async () => {
    await runCommand('pwd', options());

    expect(lines).toEqual([cwd]);
  });

  it('fails with a reason naming the exit code', async () => {
    const outcome = await runCommand('exit 3', options());

    expect(outcome).toEqual({ ok: false, reason: '`exit 3` exited with code 3' });
  });

  it('delivers the lines of stdout and stderr', async () => {
    const outcome = await runCommand(
      'echo out1; echo err1 >&2; echo out2; printf "no newline" >&2',
      options(),
    );

    expect(outcome).toEqual({ ok: true });
    expect([...lines].sort()).toEqual(['err1', 'no newline', 'out1', 'out2']);
    expect(lines.filter((line) => line.startsWith('out'))).toEqual(['out1', 'out2']);
  });

  it('kills the whole process group on a timeout', async () => {
    // Long enough for the shell to start the child and report its pid first.
    const outcome = await runCommand('sleep 30 & echo $!; wait', options({ timeoutMs: 2000 }));

    expect(outcome).toEqual({
      ok: false,
      reason: '`sleep 30 & echo $!; wait` timed out after 2 s',
    });
    expect(lines).toHaveLength(1);
    const pid = Number(lines[0]);
    expect(Number.isInteger(pid) && pid > 0).toBe(true);
    await death(pid);
  });

  it('stops the command, with a reason, when the signal aborts', async () => {
    const controller = new AbortController();
    const result = await runCommand(
      'sleep 30 & echo $!; wait',
      options({
        signal: controller.signal,
        onLine: (line) => {
          lines.push(line);
          controller.abort();
        },
      }),
    );

    expect(result).toEqual({
      ok: false,
      reason: '`sleep 30 & echo $!; wait` stopped because the control plane is shutting down',
    });
    await death(Number(lines[0]));
  });

  it('ends a command whose signal aborted before it started, saying why', async () => {
    const controller = new AbortController();
    controller.abort(new Error('the deployment is being deleted'));
    const result = await runCommand('echo started', options({ signal: controller.signal }));

    expect(result).toEqual({
      ok: false,
      reason: '`echo started` stopped: the deployment is being deleted',
    });
  });

  it('gives the command only the env it is given', async () => {
    expect(process.env.JEST_WORKER_ID).toBeDefined();

    const outcome = await runCommand(
      'echo "home=[$HOME] worker=[$JEST_WORKER_ID] given=[$GIVEN]"',
      options({ env: { GIVEN: 'yes' } }),
    );

    expect(outcome).toEqual({ ok: true });
    expect(lines).toEqual(['home=[] worker=[] given=[yes]']);
  });

  it('fails with a reason when the directory does not exist', async () => {
    const outcome = await runCommand('true', options({ cwd: join(cwd, 'missing') }));

    expect(outcome.ok).toBe(false);
  });
  describe('in a jail whose start can fail', () => {
    /** A jail that waits to be told to start (as a network's block pipe makes it), failing the first `failures` starts. */
    const jailFailing = (
      failures: number,
    ): { jail: CommandOptions['jail']; made: () => number } => {
      let made = 0;
      return {
        made: () => made,
        jail: (command) => {
          made += 1;
          const fails = made <= failures;
          return Promise.resolve({
            argv: ['/bin/sh', '-c', 'read go <&3 && exec "$@"', 'jail', ...command],
            extraPipes: ['pipe'],
            started: (child) => {
              const block = child.stdio[3] as import('node:stream').Writable;
              if (fails) return Promise.reject(new Error('nsenter: cannot open the namespace'));
              block.end('go\n');
              return Promise.resolve();
            },
            inbound: undefined,
            limits: { memoryBytes: 1, cpus: 1, pids: 1 } as never,
            ranOutOfMemory: () => Promise.resolve(false),
            release: () => Promise.resolve(),
          });
        },
      };
    };

    it('tries a command again in a new jail when its jail could not start it', async () => {
      const { jail, made } = jailFailing(1);

      const outcome = await runCommand('echo ran', options({ jail }));

      expect(outcome).toEqual({ ok: true });
      expect(made()).toBe(2);
      expect(lines).toEqual(['ran']);
    });

    it('gives up after three jails, saying why', async () => {
      const { jail, made } = jailFailing(5);

      const outcome = await runCommand('echo ran', options({ jail }));

      expect(outcome).toMatchObject({
        ok: false,
        reason: expect.stringContaining(
          'could not start in its jail: nsenter: cannot open the namespace',
        ),
        notStarted: true,
      });
      expect(made()).toBe(3);
      expect(lines).toEqual([]);
    });
  });
});
