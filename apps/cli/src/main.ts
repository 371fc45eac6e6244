import { audit, AUDIT_HELP } from './audit/audit.command.js';
import { buildImage, BUILD_IMAGE_HELP } from './build-image/build-image.command.js';
import { loadCliEnvironment } from './cli.config.js';
import { dev, DEV_HELP } from './commands/dev.command.js';
import { keys, KEYS_HELP } from './keys/keys.command.js';
import { usageLine } from '#libs/config';
import { UsageError } from './commands/scripts.js';
import { up, UP_HELP } from './commands/up.command.js';
import { deploy, DEPLOY_HELP } from './deploy/deploy.command.js';
import { listener, LISTENER_HELP } from './listener/listener.command.js';
import { cliVersion } from './version.js';

const HELP = `Usage: berth <command> [options]
       berth --version

Commands:
  up      start the platform: the control plane and the example application's runtime
  dev     serve one application's agent runtime from its directory
  deploy  deploy an application to a control plane; list, logs, revisions, delete deployments
  build-image  write the Dockerfile of an application's runtime image, for a cluster listener
  listener     run a cluster listener: deploy the deployments naming it into Kubernetes
  audit   verify the event log's hash chain (tamper evidence)
  keys    rotate the master key of a runtime's database (re-wraps its data keys)

Options:
  -v, --version  print the version
  -h, --help     this help

Run "berth <command> --help" for a command's options.`;

const COMMANDS: Readonly<Record<string, { run: typeof dev; help: string }>> = {
  up: { run: up, help: UP_HELP },
  dev: { run: dev, help: DEV_HELP },
  deploy: { run: deploy, help: DEPLOY_HELP },
  'build-image': { run: buildImage, help: BUILD_IMAGE_HELP },
  listener: { run: listener, help: LISTENER_HELP },
  audit: { run: audit, help: AUDIT_HELP },
  keys: { run: keys, help: KEYS_HELP },
};

async function main(argv: readonly string[]): Promise<void> {
  const [name, ...args] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    console.log(HELP);
    return;
  }
  if (name === '--version' || name === '-v') {
    console.log(cliVersion());
    return;
  }
  if (name.startsWith('-')) throw new UsageError(`unknown option ${name}\n${usageLine(HELP)}`);
  const command = COMMANDS[name];
  if (!command) throw new UsageError(`Unknown command "${name}". ${HELP}`);
  await command.run(args, loadCliEnvironment());
}

main(process.argv.slice(2)).catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  console.error(`berth: ${message}`);
  const code = (error as { code?: unknown } | null)?.code;
  const usage =
    error instanceof UsageError || (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS'));
  process.exit(usage ? 2 : 1);
});
