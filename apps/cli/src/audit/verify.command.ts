import { parseCommandArgs, usageError } from '#libs/config';
import { parseHead } from '#libs/event-store';
import type { CliEnvironment } from '../cli.config.js';
import { connect } from '../deploy/connection.js';

export const VERIFY_HELP = `Usage: berth audit verify [--head POSITION:HASH] [--json]

Asks the control plane to walk its event log's hash chain: prints "verified N events up to
position P" with the chain's head (keep it: a later --head proves nothing before it changed),
or the first position where the log departs from the chain and how (edited, missing,
reordered, inserted, chain_altered, head_mismatch). docs/audit.md says what it proves.

  --head POSITION:HASH   also check that the log still hashes to this head, printed earlier
  --json                 the control plane's answer as one JSON object

Exit codes: 0 verified, 1 broken (or the request failed), 2 bad usage.`;

export async function verifyAudit(args: readonly string[], env: CliEnvironment): Promise<void> {
  const { values, positionals } = parseCommandArgs(VERIFY_HELP, {
    args: [...args],
    allowPositionals: true,
    options: {
      head: { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(VERIFY_HELP);
    return;
  }
  if (positionals.length > 0)
    throw usageError(`unexpected argument ${positionals.join(' ')}`, VERIFY_HELP);
  if (values.head !== undefined && !parseHead(values.head))
    throw usageError('--head must be POSITION:HASH (a 64-digit hex sha256)', VERIFY_HELP);
  const { client } = await connect(env, process.cwd());
  const answer = await client.verifyAudit(values.head);
  console.log(values.json ? JSON.stringify(answer) : answer.summary);
  if (!answer.verified) process.exitCode = 1;
}
