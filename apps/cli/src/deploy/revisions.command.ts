import { parseCommandArgs, usageError } from '#libs/config';
import type { CliEnvironment } from '../cli.config.js';
import { UsageError } from '../commands/scripts.js';
import { connect } from './connection.js';
import type { Revision } from '#libs/control-plane-client';
import { findDeployment } from './deployment-ref.js';
import { formatChanges } from './revision-changes.js';
import { formatTable } from './table.js';

export const REVISIONS_HELP = `Usage: berth deploy revisions <ID|NAME> [--limit N] [--json]
       berth deploy revisions <ID|NAME> --changes <REVISION_ID> [--against <REVISION_ID>] [--json]

Lists a deployment's revisions, newest first: id, status, when it was created, whether it is the
active one, and the status message. With --changes, what changed in one revision instead: files
(+ added, - removed, ~ modified) and their diffs, dependencies, graphs, secrets (by name only)
and settings, against the revision it replaced.

  --limit N                 how many (1-100, default 20)
  --changes <REVISION_ID>   what changed in this revision
  --against <REVISION_ID>   with --changes: compared with this revision of the deployment instead
  --json                    one JSON object per revision and line, as the control plane returns
                            it (with --changes: the changes as the control plane returns them)`;

/** The table `berth deploy revisions` prints. */
export function revisionTable(revisions: readonly Revision[]): string {
  return formatTable(
    ['ID', 'STATUS', 'CREATED', 'ACTIVE', 'MESSAGE'],
    revisions.map((revision) => [
      revision.id,
      revision.status,
      revision.created_at.replace('T', ' ').replace(/\.\d+Z$|Z$/, ''),
      revision.active ? 'yes' : '',
      revision.status_message?.replace(/\s*\n\s*/g, ' '),
    ]),
  );
}

export async function listRevisions(args: readonly string[], env: CliEnvironment): Promise<void> {
  const { values, positionals } = parseCommandArgs(REVISIONS_HELP, {
    args: [...args],
    allowPositionals: true,
    options: {
      json: { type: 'boolean' },
      limit: { type: 'string' },
      changes: { type: 'string' },
      against: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(REVISIONS_HELP);
    return;
  }
  const [ref, ...rest] = positionals;
  if (ref === undefined) throw usageError('name the deployment', REVISIONS_HELP);
  if (rest.length > 0) throw usageError(`unexpected argument ${rest.join(' ')}`, REVISIONS_HELP);
  if (values.against !== undefined && values.changes === undefined)
    throw usageError('--against goes with --changes', REVISIONS_HELP);
  if (values.changes !== undefined) {
    const { client } = await connect(env, process.cwd());
    const deployment = await findDeployment(client, ref);
    const changes = await client.revisionChanges(deployment.id, values.changes, values.against);
    console.log(values.json ? JSON.stringify(changes) : formatChanges(changes));
    return;
  }
  const limit = Number(values.limit ?? '20');
  if (!Number.isInteger(limit) || limit < 1 || limit > 100)
    throw new UsageError(
      `--limit must be a whole number from 1 to 100, got "${values.limit ?? ''}"`,
    );
  const { client } = await connect(env, process.cwd());
  const deployment = await findDeployment(client, ref);
  const { resources } = await client.listRevisions(deployment.id, { limit });
  if (values.json) {
    for (const revision of resources) console.log(JSON.stringify(revision));
    return;
  }
  if (resources.length === 0) {
    console.log(`Deployment ${deployment.name} (${deployment.id}) has no revisions yet.`);
    return;
  }
  console.log(revisionTable(resources));
}
