import { describe, expect, it } from '@jest/globals';
import { parseCommandArgs, usageLine, UsageError } from './command-args.js';

const HELP = `Usage: berth thing [dir] [--name NAME] [--json]

Does a thing.`;

function mistakeIn(args: string[], allowPositionals = false): unknown {
  try {
    parseCommandArgs(HELP, {
      args,
      allowPositionals,
      options: { name: { type: 'string', short: 'n' }, json: { type: 'boolean' } },
    });
  } catch (error) {
    return error;
  }
  throw new Error(`${args.join(' ')} was accepted`);
}

describe('parseCommandArgs', () => {
  it('parses what the command takes', () => {
    const { values, positionals } = parseCommandArgs(HELP, {
      args: ['dir', '--name', 'x', '--json'],
      allowPositionals: true,
      options: { name: { type: 'string' }, json: { type: 'boolean' } },
    });
    expect(values).toEqual({ name: 'x', json: true });
    expect(positionals).toEqual(['dir']);
  });

  it("answers a mistake in a few words and the command's usage line, not Node's text", () => {
    const cases: [string[], string][] = [
      [['--nope'], 'unknown option --nope'],
      [['--nope=3'], 'unknown option --nope'],
      [['-z'], 'unknown option -z'],
      [['--name'], 'option --name needs a value'],
      [['-n'], 'option --name needs a value'],
      [['--json=yes'], 'option --json takes no value'],
      [['extra'], 'unexpected argument extra'],
    ];
    for (const [args, said] of cases) {
      const error = mistakeIn(args);
      expect(error).toBeInstanceOf(UsageError);
      expect((error as Error).message).toBe(
        `${said}\nUsage: berth thing [dir] [--name NAME] [--json]`,
      );
    }
  });

  it('takes the first line of a help as its usage line', () => {
    expect(usageLine(HELP)).toBe('Usage: berth thing [dir] [--name NAME] [--json]');
  });
});
