import { usageError } from '#libs/config';
import type { CliEnvironment } from '../cli.config.js';
import { rotateKeys } from './rotate.command.js';

export const KEYS_HELP = `Usage: berth keys rotate [--new-key-file FILE] [--graph-config FILE] [--batch-size N] [--database-url URL]

The data keys of a runtime's database, wrapped by its master key or by the application's
encryption handlers (docs/operations.md, "Privacy and encryption").

Commands:
  rotate    wrap every data key again, under a new master key or through the encryption
            handlers (a KMS's new key version), without rewriting the event log

Run "berth keys <command> --help" for a command's options.`;

const SUBCOMMANDS: Readonly<
  Record<string, (args: readonly string[], env: CliEnvironment) => Promise<void>>
> = { rotate: rotateKeys };

export async function keys(args: readonly string[], env: CliEnvironment): Promise<void> {
  const [first, ...rest] = args;
  if (first === undefined || first === '--help' || first === '-h' || first === 'help') {
    console.log(KEYS_HELP);
    return;
  }
  const subcommand = SUBCOMMANDS[first];
  if (!subcommand) throw usageError(`unknown keys command "${first}"`, KEYS_HELP);
  await subcommand(rest, env);
}
