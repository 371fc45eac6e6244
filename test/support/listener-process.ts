import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';

const CLI = 'dist/apps/cli/src/main.js';

export interface ListenerProcess {
  readonly child: ChildProcess;
  /** What this process wrote. */
  output(): string;
  /** SIGTERM, and its exit code. */
  stop(): Promise<number | null>;
}

/** `berth listener` (built) as a user runs it, against the control plane at `hostUrl`. */
export function startListenerProcess(options: {
  readonly hostUrl: string;
  readonly apiKey: string;
  readonly args: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  /** Given everything the process writes as well. */
  readonly onOutput?: (text: string) => void;
}): ListenerProcess {
  const child = spawn(process.execPath, [CLI, 'listener', ...options.args], {
    env: {
      ...process.env,
      ...options.env,
      BERTH_HOST_URL: options.hostUrl,
      BERTH_API_KEY: options.apiKey,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer): void => {
    output += chunk.toString();
    options.onOutput?.(chunk.toString());
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  return {
    child,
    output: () => output,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const [code] = (await exited) as [number | null];
      return code;
    },
  };
}
