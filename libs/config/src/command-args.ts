import { parseArgs, type ParseArgsConfig } from 'node:util';

/** A mistake in the command line: printed as one line (and a usage line), with no stack trace. */
export class UsageError extends Error {}

type Parsed<T extends ParseArgsConfig> = ReturnType<typeof parseArgs<T>>;

/**
 * `parseArgs` for a command whose help is `help`: a mistake in the options (an unknown one, a
 * missing value, an argument too many) is a UsageError that says what is wrong in a few words,
 * then the command's usage line (the first line of its help), instead of Node's own text.
 */
export function parseCommandArgs<T extends ParseArgsConfig>(help: string, config: T): Parsed<T> {
  try {
    return parseArgs(config);
  } catch (error) {
    const mistake = describeParseError(error);
    if (mistake === undefined) throw error;
    throw usageError(mistake, help);
  }
}

/** A mistake in a command's arguments, said in a few words, then the command's usage line. */
export function usageError(mistake: string, help: string): UsageError {
  return new UsageError(`${mistake}\n${usageLine(help)}`);
}

/** The first line of a command's help: `Usage: berth ...`. */
export function usageLine(help: string): string {
  return help.split('\n', 1)[0] ?? help;
}

/** What Node's parseArgs found wrong, in Berth's words; undefined for any other error. */
export function describeParseError(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !code.startsWith('ERR_PARSE_ARGS')) return undefined;
  const quoted = /'([^']*)'/.exec((error as Error).message)?.[1] ?? '';
  // `-n, --name <value>`: the long name says it best.
  const option = quoted.split(/,? /).findLast((word) => word.startsWith('-')) ?? quoted;
  switch (code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `unknown option ${option}`;
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `unexpected argument ${quoted}`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      return quoted.includes('<value>')
        ? `option ${option} needs a value`
        : `option ${option} takes no value`;
    default:
      return 'bad options';
  }
}
