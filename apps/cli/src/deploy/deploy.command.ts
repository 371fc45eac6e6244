import type { CliEnvironment } from '../cli.config.js';
import { deleteDeployment } from './delete.command.js';
import { deployProject } from './deploy-project.js';
import { listDeployments } from './list.command.js';
import { showLogs } from './logs.command.js';
import { listRevisions } from './revisions.command.js';

export const DEPLOY_HELP = `Usage: berth deploy [dir] [options]
       berth deploy <list | revisions | logs | delete> [options]

Deploys the application in dir (default: the current directory) to the control plane: checks
its graph configuration first as berth dev reads it (refused there, nothing is sent); finds
the deployment by name, or creates it; packs the directory (honouring .gitignore and
.dockerignore, never node_modules, .git or .env), uploads it and makes a new revision with the
secrets from dir/.env; then follows the revision until it is DEPLOYED (prints the URL) or has
failed (prints the end of its logs and exits 1).

Options:
  --name NAME                   deployment name (default: dir's name in a-z, 0-9 and -)
  --deployment-type dev|prod    type of a new deployment (default: dev)
  --config FILE                 graph configuration, relative to dir (default: langgraph.json)
  --image URI                   deploy a prebuilt image (external_container) on a cluster listener
  --no-wait                     return once the revision is created
  --json                        one JSON object per line on stdout, for CI
  -h, --help                    this help

Commands:
  list                          the deployments: id, name, type, status, URL
  revisions <ID|NAME>           a deployment's revisions, newest first
  logs [<ID|NAME>]              build and deploy logs (--type, --follow)
  delete <ID|NAME>              delete a deployment (asks first on a terminal; --force)

Environment:
  BERTH_API_KEY    API key (else BERTH_API_KEY in dir/.env; else the key of the platform running
                   on this machine, found from any directory; else the key file of Berth's data
                   directory, BERTH_DATA_DIR or .berth in the Berth installation)
  BERTH_HOST_URL   the control plane (default: the platform running on this machine, else
                   http://127.0.0.1:8080)

Exit codes: 0 done, 1 failed (deploy, request, refused key, unreachable host), 2 bad usage.
Run "berth deploy <command> --help" for a command's options.`;

const SUBCOMMANDS: Readonly<
  Record<string, (args: readonly string[], env: CliEnvironment) => Promise<void>>
> = {
  list: listDeployments,
  revisions: listRevisions,
  logs: showLogs,
  delete: deleteDeployment,
};

/**
 * `berth deploy`: a subcommand when the first argument names one, else a directory to deploy
 * (write `./list` to deploy a directory called list).
 */
export async function deploy(args: readonly string[], env: CliEnvironment): Promise<void> {
  const [first, ...rest] = args;
  const subcommand = first === undefined ? undefined : SUBCOMMANDS[first];
  if (subcommand) await subcommand(rest, env);
  else await deployProject(args, env, DEPLOY_HELP);
}
