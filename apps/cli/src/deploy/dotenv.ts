/** The variables of a .env file, in order; a later line wins over an earlier one. */
export type DotenvEntries = ReadonlyMap<string, string>;

const LINE = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*(.*)?$/;
const ESCAPES: Readonly<Record<string, string>> = { n: '\n', r: '\r', t: '\t' };

/**
 * Parses .env text as the usual tools do: `KEY=VALUE` lines, an optional `export ` prefix,
 * `#` comments (whole lines, or after whitespace in an unquoted value), single quotes (literal),
 * double quotes (\n, \r, \t, \" and \\ escapes, may span lines) and backquotes. Lines that are
 * not assignments are skipped.
 */
export function parseDotenv(text: string): Map<string, string> {
  const entries = new Map<string, string>();
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  for (let index = 0; index < lines.length; index += 1) {
    const match = LINE.exec(lines[index] ?? '');
    if (!match) continue;
    const name = match[1] ?? '';
    let raw = (match[2] ?? '').trim();
    const quote = raw[0];
    if (quote === '"' || quote === "'" || quote === '`') {
      // A quoted value may continue on the next lines until its closing quote.
      while (closingQuote(raw, quote) < 0 && index + 1 < lines.length) {
        index += 1;
        raw += `\n${lines[index] ?? ''}`;
      }
      const end = closingQuote(raw, quote);
      const inner = end < 0 ? raw.slice(1) : raw.slice(1, end);
      entries.set(name, quote === '"' ? unescapeDouble(inner) : inner);
      continue;
    }
    entries.set(name, raw.replace(/\s+#.*$/, '').trim());
  }
  return entries;
}

/** Index of the quote closing the value opened by `raw[0]`, or -1. */
function closingQuote(raw: string, quote: string): number {
  for (let index = 1; index < raw.length; index += 1) {
    if (quote === '"' && raw[index] === '\\') {
      index += 1;
      continue;
    }
    if (raw[index] === quote) return index;
  }
  return -1;
}

function unescapeDouble(value: string): string {
  return value.replace(/\\(.)/g, (_match, char: string) => ESCAPES[char] ?? char);
}
