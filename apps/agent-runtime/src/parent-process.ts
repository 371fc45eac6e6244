/**
 * Calls `stop` when the parent process is gone: it holds the other end of a stdin pipe, and when
 * it dies, even by SIGKILL, stdin ends.
 */
export function stopWithParent(stop: () => void): void {
  // Its output may have gone to the parent too: writing it then fails (EPIPE), which must not
  // end the process before it has stopped.
  const outputGone = (): void => undefined;
  process.stdout.on('error', outputGone);
  process.stderr.on('error', outputGone);
  process.stdin.on('end', stop);
  process.stdin.on('close', stop);
  process.stdin.on('error', stop);
  process.stdin.on('data', () => undefined);
  process.stdin.resume();
}
