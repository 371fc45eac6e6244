import { spawn } from 'node:child_process';
import { once } from 'node:events';
import type { CliEnvironment } from '../cli.config.js';
import { LISTENER_SCRIPT } from '../commands/scripts.js';

export const LISTENER_HELP = `Usage: berth listener [options]

Runs a cluster listener, which deploys the deployments naming it into Kubernetes. Its options:
berth listener --help. See docs/kubernetes.md.`;

/** Runs the cluster listener's process, passing it the signals that stop it and taking its exit code. */
export async function listener(args: readonly string[], _env: CliEnvironment): Promise<void> {
  const child = spawn(process.execPath, [LISTENER_SCRIPT, ...args], { stdio: 'inherit' });
  const forward = (signal: NodeJS.Signals): void => {
    child.kill(signal);
  };
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  const [code] = (await once(child, 'exit')) as [number | null];
  process.exitCode = code ?? 1;
}
