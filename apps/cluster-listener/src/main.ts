import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { ConfigError, envText, parseCommandArgs, UsageError } from '#libs/config';
import { createLogger, logSettingsFrom } from '#libs/logging';
import { LISTENER_HELP, LISTENER_OPTIONS, listenerSettingsOf } from './listener.config.js';
import { runListener } from './listener/start-listener.js';

/** Where Kubernetes tells a pod its namespace. */
const POD_NAMESPACE_FILE = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';

async function main(argv: readonly string[]): Promise<void> {
  const { values } = parseCommandArgs(LISTENER_HELP, {
    args: [...argv],
    options: LISTENER_OPTIONS,
  });
  if (values.help) {
    console.log(LISTENER_HELP);
    return;
  }
  const podNamespace = (await readFile(POD_NAMESPACE_FILE, 'utf8').catch(() => '')).trim();
  const settings = listenerSettingsOf(values, process.env, {
    podNamespace: podNamespace || undefined,
    dataDir: resolve(envText(process.env.BERTH_DATA_DIR) ?? '.berth'),
  });
  const log = createLogger('cluster-listener', logSettingsFrom(process.env, process.stdout.isTTY));
  const stopped = new AbortController();
  const stop = (): void => {
    stopped.abort();
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  await runListener(settings, log, stopped.signal);
  log.info('stopped');
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(`berth listener: ${error instanceof Error ? error.message : String(error)}`);
  const usage = error instanceof ConfigError || error instanceof UsageError;
  process.exit(usage ? 2 : 1);
});
