type Labels = Record<string, string>;

interface Sample {
  readonly name: string;
  readonly labels: Labels;
  readonly value: number;
}

const SAMPLE_LINE =
  /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (-?[0-9.eE+-]+|[Nn][Aa][Nn]|[+-]?[Ii][Nn][Ff])(?: -?\d+)?$/;
const LABEL = /\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*(?:,|$)/y;
const SUFFIXES: Record<string, readonly string[]> = {
  counter: ['_total', ''],
  gauge: [''],
  histogram: ['_bucket', '_sum', '_count'],
  summary: ['', '_sum', '_count'],
  untyped: [''],
};

function parseLabels(text: string | undefined, line: string): Labels {
  const labels: Labels = {};
  if (!text) return labels;
  LABEL.lastIndex = 0;
  while (LABEL.lastIndex < text.length) {
    const match = LABEL.exec(text);
    if (!match?.[1]) throw new Error(`Bad labels in: ${line}`);
    labels[match[1]] = (match[2] ?? '').replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
  }
  return labels;
}

/** As Prometheus reads values: NaN and Inf in any case (prom-client writes `Nan`). */
function parseValue(text: string): number {
  const lower = text.toLowerCase();
  if (lower === 'nan') return NaN;
  if (lower === '+inf' || lower === 'inf') return Infinity;
  if (lower === '-inf') return -Infinity;
  return Number(text);
}

/**
 * A scrape of a /metrics page, parsed by the rules of the Prometheus text exposition format:
 * every sample must belong to a family declared by `# TYPE` with a suffix its type allows, and
 * a line that is neither a comment nor a well-formed sample fails the parse.
 */
export class Scrape {
  private readonly samples: Sample[] = [];
  private readonly types = new Map<string, string>();

  constructor(text: string) {
    for (const line of text.split('\n')) {
      if (line === '') continue;
      const type = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (\w+)$/.exec(line);
      if (type?.[1] && type[2]) {
        if (!SUFFIXES[type[2]]) throw new Error(`Unknown metric type in: ${line}`);
        this.types.set(type[1], type[2]);
        continue;
      }
      if (line.startsWith('#')) continue;
      const match = SAMPLE_LINE.exec(line);
      if (!match?.[1] || !match[3]) throw new Error(`Not a sample line: ${line}`);
      const name = match[1];
      const family = [...this.types.entries()].find(([base, kind]) =>
        (SUFFIXES[kind] ?? []).some((suffix) => name === `${base}${suffix}`),
      );
      if (!family) throw new Error(`Sample of no declared family: ${line}`);
      this.samples.push({ name, labels: parseLabels(match[2], line), value: parseValue(match[3]) });
    }
  }

  static async of(baseUrl: string, apiKey: string): Promise<Scrape> {
    const response = await fetch(`${baseUrl}/metrics`, { headers: { 'x-api-key': apiKey } });
    if (response.status !== 200) throw new Error(`/metrics answered ${response.status}`);
    return new Scrape(await response.text());
  }

  has(name: string): boolean {
    return this.types.has(name);
  }

  private find(name: string, labels: Labels): Sample | undefined {
    return this.samples.find(
      (sample) =>
        sample.name === name &&
        Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
    );
  }

  /** A counter's or a gauge's value for these labels; 0 when it has no such series yet. */
  value(name: string, labels: Labels = {}): number {
    return this.find(name, labels)?.value ?? 0;
  }

  /** How many observations a histogram has for these labels; 0 when none. */
  count(name: string, labels: Labels = {}): number {
    return this.find(`${name}_count`, labels)?.value ?? 0;
  }

  /** The label sets a metric has series for. */
  labelsOf(name: string): Labels[] {
    return this.samples.filter((sample) => sample.name === name).map((sample) => sample.labels);
  }
}
