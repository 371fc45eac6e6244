import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';

/** How long a platform child is given to end once let go of, before it is killed. */
const STOP_GRACE_MS = 2_000;

/**
 * A process of the platform's own code (a database gate, the WebSocket courier), told what to do
 * over its IPC channel; none of the parent's Node flags (a profiler, an inspector) pass on.
 */
export const forkPlatformChild = (script: string): ChildProcess =>
  fork(script, [], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    execArgv: [],
    serialization: 'json',
  });

/** Lets the child go (it ends when its channel closes) and kills it if it has not ended soon. */
export async function letGo(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  if (child.connected) child.disconnect();
  const killed = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
  await exited;
  clearTimeout(killed);
}
