import type { ChildProcess } from 'node:child_process';

/** Polls GET /ok until it answers; fails with the process's output when it exits or time is up. */
export async function waitForOk(
  what: string,
  child: ChildProcess,
  url: string,
  output: () => string,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      throw new Error(`${what} exited with ${child.exitCode} before it was ready:\n${output()}`);
    }
    const ready = await fetch(`${url}/ok`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill('SIGKILL');
  throw new Error(`${what} did not answer GET /ok within ${timeoutMs} ms:\n${output()}`);
}
