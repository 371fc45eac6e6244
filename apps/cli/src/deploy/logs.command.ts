import { parseCommandArgs, usageError } from '#libs/config';
import { readLogLine } from '#libs/logging';
import type { CliEnvironment } from '../cli.config.js';
import { UsageError } from '../commands/scripts.js';
import { connect } from './connection.js';
import { ApiError, type LogLine } from '#libs/control-plane-client';
import { findDeployment } from './deployment-ref.js';
import { followLogsAcrossOutages } from './log-follower.js';
import { defaultDeploymentName } from './project-name.js';

export const LOGS_HELP = `Usage: berth deploy logs [<ID|NAME>] [--type build|deploy] [--revision RID] [--follow] [--json]

Prints a deployment's logs: those of its active revision (or of its latest one while none is
active). Without an id or name: the deployment named after the current directory.

  --type build|deploy   only the build log, or only the deploy (runtime) log
  --revision RID        the logs of this revision instead
  --follow, -f          keep printing new lines as they come (Ctrl-C stops, exit 130);
                        without --revision, a new revision's lines follow when it replaces
                        the one before (a redeploy, a change, a push), which is said. When
                        the platform stops answering it says so on stderr and reconnects
                        (after 1 s, doubling up to 30 s), printing no line twice; it ends
                        (exit 1) only when the deployment is gone
  --json                one JSON object per line: {id, timestamp, type, message}, and
                        {event: "revision", revision_id, replaces} when one replaces another`;

/** One log line as printed: time, type, message (a structured line's level and message). */
export function formatLogLine(line: LogLine): string {
  const time = line.timestamp.replace(/^.*T/, '').replace(/Z$/, '');
  const { level, message } = readLogLine(line.message, '');
  return `${time} ${line.type.padEnd(6)} ${level ? `${level} ` : ''}${message}`;
}

export async function showLogs(args: readonly string[], env: CliEnvironment): Promise<void> {
  const { values, positionals } = parseCommandArgs(LOGS_HELP, {
    args: [...args],
    allowPositionals: true,
    options: {
      type: { type: 'string' },
      revision: { type: 'string' },
      follow: { type: 'boolean', short: 'f' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(LOGS_HELP);
    return;
  }
  if (positionals.length > 1)
    throw usageError(`unexpected argument ${positionals[1] ?? ''}`, LOGS_HELP);
  const type = values.type;
  if (type !== undefined && type !== 'build' && type !== 'deploy')
    throw new UsageError(`--type must be build or deploy, got "${type}"`);
  const ref = positionals[0] ?? defaultDeploymentName(process.cwd());
  if (!ref) throw new UsageError('name the deployment: berth deploy logs <ID|NAME>');
  const { client } = await connect(env, process.cwd());
  const deployment = await findDeployment(client, ref);
  const print = (line: LogLine): void => {
    console.log(values.json ? JSON.stringify(line) : formatLogLine(line));
  };
  if (!values.follow) {
    const page = await client.logs(deployment.id, values.revision, type);
    page.resources.forEach(print);
    if (page.revision_id === null && !values.json)
      console.log(`Deployment ${deployment.name} has no revision yet.`);
    return;
  }
  const stop = new AbortController();
  process.once('SIGINT', () => {
    stop.abort();
  });
  const end = await followLogsAcrossOutages({
    client,
    deploymentId: deployment.id,
    revisionId: values.revision,
    type,
    signal: stop.signal,
    output: {
      line: print,
      takeover: (revision_id, replaces) => {
        console.log(
          values.json
            ? JSON.stringify({ event: 'revision', revision_id, replaces })
            : `--- revision ${revision_id} replaces ${replaces} ---`,
        );
      },
      notice: (text) => {
        console.error(`berth: ${text}`);
      },
    },
  }).catch((error: unknown) => {
    if (error instanceof ApiError && error.status === 404)
      throw new Error(`${deployment.name} is gone (${error.message}); stopped following its logs`);
    throw error;
  });
  if (end === 'no-revision') {
    if (!values.json) console.log(`Deployment ${deployment.name} has no revision yet.`);
    return;
  }
  console.error(`berth: stopped following the logs of ${deployment.name}`);
  process.exitCode = 130;
}
