import { usageError } from '#libs/config';
import type { CliEnvironment } from '../cli.config.js';
import { exportAudit } from './export.command.js';
import { verifyAudit } from './verify.command.js';

export const AUDIT_HELP = `Usage: berth audit verify [--head POSITION:HASH] [--json]
       berth audit export --deployment <ID|NAME> [--since TIME] [--until TIME]

Tamper evidence of the platform's event log (docs/audit.md).

Commands:
  verify    walk the log's hash chain: "verified N events up to position P", or where it breaks
  export    a deployment's audit trail for a period, as JSON lines with chain positions

Environment: BERTH_API_KEY and BERTH_HOST_URL, as for berth deploy.
Run "berth audit <command> --help" for a command's options.`;

const SUBCOMMANDS: Readonly<
  Record<string, (args: readonly string[], env: CliEnvironment) => Promise<void>>
> = { verify: verifyAudit, export: exportAudit };

export async function audit(args: readonly string[], env: CliEnvironment): Promise<void> {
  const [first, ...rest] = args;
  if (first === undefined || first === '--help' || first === '-h' || first === 'help') {
    console.log(AUDIT_HELP);
    return;
  }
  const subcommand = SUBCOMMANDS[first];
  if (!subcommand) throw usageError(`unknown audit command "${first}"`, AUDIT_HELP);
  await subcommand(rest, env);
}
