import { parseCommandArgs, usageError } from '#libs/config';
import type { CliEnvironment } from '../cli.config.js';
import { connect } from './connection.js';
import type { Deployment } from '#libs/control-plane-client';
import { formatTable } from './table.js';

export const LIST_HELP = `Usage: berth deploy list [--json] [--name-contains TEXT]

Lists the deployments the API key can see: id, name, deployment type, status and URL.

  --name-contains TEXT   only deployments whose name contains TEXT
  --json                 one JSON object per deployment and line, as the control plane returns it`;

/** The table `berth deploy list` prints. */
export function deploymentTable(deployments: readonly Deployment[]): string {
  return formatTable(
    ['ID', 'NAME', 'TYPE', 'STATUS', 'URL'],
    deployments.map((deployment) => [
      deployment.id,
      deployment.name,
      deployment.source_config.deployment_type,
      deployment.status,
      deployment.source_config.custom_url,
    ]),
  );
}

export async function listDeployments(args: readonly string[], env: CliEnvironment): Promise<void> {
  const { values, positionals } = parseCommandArgs(LIST_HELP, {
    args: [...args],
    allowPositionals: true,
    options: {
      json: { type: 'boolean' },
      'name-contains': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(LIST_HELP);
    return;
  }
  if (positionals.length > 0)
    throw usageError(`unexpected argument ${positionals.join(' ')}`, LIST_HELP);
  const { client } = await connect(env, process.cwd());
  const deployments = await client.allDeployments({ name_contains: values['name-contains'] });
  if (values.json) {
    for (const deployment of deployments) console.log(JSON.stringify(deployment));
    return;
  }
  if (deployments.length === 0) {
    console.log(`No deployments at ${client.url}. Create one with: berth deploy [dir]`);
    return;
  }
  console.log(deploymentTable(deployments));
}
