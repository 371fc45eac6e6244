import { parseDotenv } from './dotenv.js';

const entries = (text: string): Record<string, string> => Object.fromEntries(parseDotenv(text));

describe('parseDotenv', () => {
  it('reads KEY=VALUE lines, skipping comments, blanks and lines that assign nothing', () => {
    expect(entries('# a comment\n\nA=1\nnot an assignment\nB = two words \n')).toEqual({
      A: '1',
      B: 'two words',
    });
  });

  it('accepts an export prefix', () => {
    expect(entries('export TOKEN=abc\n  export  OTHER="x"')).toEqual({ TOKEN: 'abc', OTHER: 'x' });
  });

  it('drops a trailing comment from an unquoted value, but not a # inside it', () => {
    expect(entries('A=value # comment\nB=a#b\nC=')).toEqual({ A: 'value', B: 'a#b', C: '' });
  });

  it('keeps single-quoted values literal', () => {
    expect(entries(`A='it is \\n raw # not a comment' # comment`)).toEqual({
      A: 'it is \\n raw # not a comment',
    });
  });

  it('unescapes double-quoted values, which may span lines', () => {
    expect(entries('A="line1\\nline2 \\"quoted\\""\nB="first\nsecond"\nC=3')).toEqual({
      A: 'line1\nline2 "quoted"',
      B: 'first\nsecond',
      C: '3',
    });
  });

  it('reads CRLF files and lets a later line win', () => {
    expect(entries('A=1\r\nA=2\r\nB=`back`\r\n')).toEqual({ A: '2', B: 'back' });
  });

  it('takes an unterminated quote to the end of the file', () => {
    expect(entries('A="open\nB=2')).toEqual({ A: 'open\nB=2' });
  });
});
