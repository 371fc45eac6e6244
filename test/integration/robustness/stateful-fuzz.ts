import { randomUUID } from 'node:crypto';
import { Scrape } from '../../support/prometheus.js';

/** A request that takes longer than this is a hang (a read model waited on, say). */
const HANG_MS = 5_000;

/** A seeded generator (mulberry32): the same seed sends the same requests. */
export class Random {
  private state: number;

  constructor(readonly seed: number) {
    this.state = seed >>> 0;
  }

  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new Error('pick from an empty list');
    return item;
  }

  /** Random letters (and a few that JSON and SQL treat specially). */
  text(length: number): string {
    const alphabet = Array.from('abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456789-_ .\'"\\%é漢🙂');
    let text = '';
    for (let i = 0; i < length; i += 1) text += this.pick(alphabet);
    return text;
  }
}

/** Values that are wrong, or right only at the edge, for a field of any type. */
export function edgeValue(random: Random): unknown {
  return random.pick<() => unknown>([
    () => null,
    () => '',
    () => ' ',
    () => random.text(3),
    () => random.text(5_000),
    () => 'x'.repeat(200_000),
    () => 'a.b',
    () => -1,
    () => 0,
    () => 1.5,
    () => -1e308,
    () => 1e308,
    () => Number.MAX_SAFE_INTEGER + 2,
    () => true,
    () => false,
    () => [],
    () => [null],
    () => [random.text(4), null],
    () => ({}),
    () => ({ a: null }),
    () => ({ a: { b: null, c: [null, { d: null }] } }),
    () => ({ [random.text(300)]: random.text(10) }),
    () => '0000-01-01T00:00:00Z',
    () => '9999-12-31T23:59:59Z',
    () => '2026-01-01T00:00:00Z',
    () => 'not a date',
    () => '*/5 * * * *',
    () => 'Europe/Oslo',
    () => 'Nowhere/Else',
    () => randomUUID(),
  ])();
}

/** A valid body with some of its fields (and some fields it does not have) made edge values. */
export function mutate(
  random: Random,
  valid: Record<string, unknown>,
  fields: readonly string[],
): Record<string, unknown> {
  const body = new Map(Object.entries(valid));
  for (const field of fields) {
    if (random.chance(0.35)) body.set(field, edgeValue(random));
    else if (random.chance(0.1)) body.delete(field);
  }
  return Object.fromEntries(body);
}

export interface Sent {
  readonly status: number;
  readonly body: unknown;
}

export interface StatefulReport {
  sequences: number;
  requests: number;
  readonly statuses: Map<number, number>;
  readonly failures: string[];
}

export function newReport(): StatefulReport {
  return { sequences: 0, requests: 0, statuses: new Map(), failures: [] };
}

/** Sends one request; a 5xx, a hang, or a 4xx without a JSON `detail` is a failure. */
export async function send(
  target: { readonly url: string; readonly key: string },
  report: StatefulReport,
  method: string,
  path: string,
  body?: unknown,
): Promise<Sent> {
  report.requests += 1;
  const label = `${method} ${path} ${body === undefined ? '' : JSON.stringify(body).slice(0, 200)}`;
  let response: Response;
  let text: string;
  try {
    response = await fetch(`${target.url}${path}`, {
      method,
      headers: { 'x-api-key': target.key, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(HANG_MS),
    });
    text = await response.text();
  } catch (error) {
    report.failures.push(`${label}: no answer within ${HANG_MS} ms (${String(error)})`);
    return { status: 0, body: undefined };
  }
  report.statuses.set(response.status, (report.statuses.get(response.status) ?? 0) + 1);
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = text;
  }
  if (response.status >= 500) {
    report.failures.push(`${label}: ${response.status} ${text.slice(0, 300)}`);
  } else if (
    response.status >= 400 &&
    (parsed as { detail?: unknown } | undefined)?.detail === undefined
  ) {
    report.failures.push(
      `${label}: ${response.status} without a JSON detail: ${text.slice(0, 200)}`,
    );
  }
  return { status: response.status, body: parsed };
}

/**
 * Every read model has caught up with the log (lag 0 and none stuck, by `/metrics`) and `/ok`
 * answers 200; waits a few seconds for the last writes to be projected.
 */
export async function readModelsCaughtUp(target: {
  readonly url: string;
  readonly key: string;
}): Promise<string[]> {
  const deadline = Date.now() + 15_000;
  let problems: string[] = [];
  while (Date.now() < deadline) {
    problems = [];
    const ok = await fetch(`${target.url}/ok`);
    if (ok.status !== 200) problems.push(`/ok answered ${ok.status}: ${await ok.text()}`);
    const scrape = await Scrape.of(target.url, target.key);
    for (const labels of scrape.labelsOf('berth_projection_lag_events')) {
      const lag = scrape.value('berth_projection_lag_events', labels);
      if (lag > 0) problems.push(`${labels.projection ?? '?'} is ${lag} events behind the log`);
    }
    for (const labels of scrape.labelsOf('berth_projection_stuck')) {
      if (scrape.value('berth_projection_stuck', labels) > 0)
        problems.push(`${labels.projection ?? '?'} is stuck`);
    }
    if (scrape.labelsOf('berth_projection_lag_events').length === 0)
      problems.push('no projection reports its lag');
    if (problems.length === 0) return [];
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return problems;
}

export function describeStatefulReport(name: string, seed: number, report: StatefulReport): string {
  const statuses = [...report.statuses.entries()]
    .sort(([a], [b]) => a - b)
    .map(([status, count]) => `${status}: ${count}`)
    .join(', ');
  return (
    `stateful fuzz ${name} (seed ${seed}): ${report.sequences} sequences, ${report.requests} ` +
    `requests, ${report.failures.length} failures; statuses ${statuses}`
  );
}

/** The seed of this run: BERTH_FUZZ_SEED to replay one. */
export function fuzzSeed(): number {
  const given = process.env.BERTH_FUZZ_SEED;
  return given ? Number(given) : Math.floor(Math.random() * 2 ** 31);
}
