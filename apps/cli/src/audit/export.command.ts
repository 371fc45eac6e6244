import { parseCommandArgs, usageError } from '#libs/config';
import type { CliEnvironment } from '../cli.config.js';
import { connect } from '../deploy/connection.js';
import { findDeployment } from '../deploy/deployment-ref.js';

export const EXPORT_HELP = `Usage: berth audit export --deployment <ID|NAME> [--since TIME] [--until TIME]

Prints a deployment's audit trail as JSON lines, one event per line in the order it happened:
its chain position and hash (null when committed after the last seal), id, stream and stream
position, type, data, metadata and time. "berth audit verify" proves the positions up to a head
unchanged (docs/audit.md).

  --deployment ID|NAME   the deployment
  --since TIME           events recorded at or after TIME (ISO 8601, e.g. 2026-12-01 or
                         2026-12-01T08:00:00Z)
  --until TIME           events recorded before TIME

Exit codes: 0 printed, 1 the request failed, 2 bad usage.`;

const ISO_TIME = /^\d{4}-\d\d-\d\d/;

export async function exportAudit(args: readonly string[], env: CliEnvironment): Promise<void> {
  const { values, positionals } = parseCommandArgs(EXPORT_HELP, {
    args: [...args],
    allowPositionals: true,
    options: {
      deployment: { type: 'string' },
      since: { type: 'string' },
      until: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(EXPORT_HELP);
    return;
  }
  if (positionals.length > 0)
    throw usageError(`unexpected argument ${positionals.join(' ')}`, EXPORT_HELP);
  if (values.deployment === undefined) throw usageError('--deployment is required', EXPORT_HELP);
  for (const name of ['since', 'until'] as const) {
    const value = values[name];
    if (value !== undefined && (!ISO_TIME.test(value) || Number.isNaN(Date.parse(value))))
      throw usageError(`--${name} must be an ISO 8601 date or time, got "${value}"`, EXPORT_HELP);
  }
  const { client } = await connect(env, process.cwd());
  const deployment = await findDeployment(client, values.deployment);
  const { resources } = await client.exportAudit(deployment.id, {
    since: values.since,
    until: values.until,
  });
  for (const record of resources) console.log(JSON.stringify(record));
}
