import { randomUUID } from 'node:crypto';
import type { Route } from '../../support/nest-routes.js';

/** A request that takes longer than this is a hang. */
const HANG_MS = 5_000;
const MEGABYTE_STRING = 'x'.repeat(1024 * 1024);
const DEEP = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;

/** A stack frame, or a path of this machine, in a response body. */
const LEAK = /\n\s+at \S|\/work\/|\/tmp\/|\/root\/|\/home\/|node_modules|\/dist\//;

export interface FuzzTarget {
  readonly name: string;
  readonly url: string;
  readonly key: string;
  /** A key the server knows, of another tenant; or a second wrong key where there is none. */
  readonly otherKey: string;
  readonly routes: readonly Route[];
  /** Ids that exist, by path parameter name, so that requests reach past the lookup. */
  readonly knownIds: Readonly<Record<string, string>>;
  /**
   * Path parameters that keep their known id in the bad-id cases of routes with other parameters
   * (a gateway's deployment id, so that the bad ids reach the routes behind it).
   */
  readonly fixedParams?: readonly string[];
  /** Routes not started within this many milliseconds are left out (and counted as such). */
  readonly budgetMs?: number;
}

interface FuzzCase {
  readonly what: string;
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: string;
}

export interface FuzzReport {
  /** Routes fuzzed: fewer than given when the time budget ran out. */
  routes: number;
  sent: number;
  readonly statuses: Map<number, number>;
  readonly failures: string[];
}

const JSON_TYPE = { 'content-type': 'application/json' };

/** Bodies that are wrong in every way the suite knows: syntax, types, size, depth, text, numbers. */
const BAD_BODIES: readonly [string, Record<string, string>, string][] = [
  ['malformed JSON', JSON_TYPE, '{"metadata": {"a": '],
  ['a list', JSON_TYPE, '[]'],
  ['a number', JSON_TYPE, '123'],
  ['a string', JSON_TYPE, '"text"'],
  ['null', JSON_TYPE, 'null'],
  [
    'wrong field types',
    JSON_TYPE,
    '{"metadata": 5, "name": [], "limit": "x", "input": 1, "assistant_id": 7, "values": true}',
  ],
  ['depth 10,000', JSON_TYPE, `{"metadata": ${DEEP}, "input": ${DEEP}}`],
  [
    '1 MB strings',
    JSON_TYPE,
    JSON.stringify({
      name: MEGABYTE_STRING,
      metadata: { k: MEGABYTE_STRING },
      graph_id: MEGABYTE_STRING,
    }),
  ],
  [
    'NUL characters',
    JSON_TYPE,
    '{"name": "a\\u0000b", "metadata": {"k\\u0000": "v"}, "input": {"t": "\\u0000"}, "graph_id": "\\u0000"}',
  ],
  [
    'lone surrogates',
    JSON_TYPE,
    '{"name": "\\ud800", "metadata": {"k": "\\udfff"}, "input": {"t": "a\\ud800b"}}',
  ],
  [
    'huge and negative numbers',
    JSON_TYPE,
    '{"limit": 1e300, "offset": -1, "version": 1e308, "after_seconds": -5, "ttl": {"ttl": 1e300}}',
  ],
  ['a __proto__ key', JSON_TYPE, '{"__proto__": {"admin": true}, "metadata": {}}'],
  ['text/plain', { 'content-type': 'text/plain' }, 'hello'],
  ['application/xml', { 'content-type': 'application/xml' }, '<a/>'],
  ['multipart', { 'content-type': 'multipart/form-data; boundary=x' }, '--x\r\n\r\nv\r\n--x--'],
  ['an empty JSON body', JSON_TYPE, ''],
];

const BAD_QUERIES = [
  '?limit=1e300&offset=1e300',
  '?limit=-1&offset=-99999999999999999999',
  '?limit=%00&select=%00',
  '?subgraphs=%ED%A0%80&follow=maybe&type=%00',
  `?before=${'a'.repeat(8_000)}`,
];

const BAD_IDS = [
  'not-an-id',
  '%00',
  '%ED%A0%80',
  'a'.repeat(2_000),
  '..%2F..%2Fetc%2Fpasswd',
  '1e400',
];

function withParams(path: string, value: (name: string) => string): string {
  return path.replace(/:([A-Za-z_]+)/g, (_, name: string) => value(name));
}

function casesOf(target: FuzzTarget, route: Route): FuzzCase[] {
  const known = (name: string) => target.knownIds[name] ?? randomUUID();
  const path = withParams(route.path, known);
  const auth = { 'x-api-key': target.key };
  const cases: FuzzCase[] = [];
  const hasBody = route.method !== 'GET' && route.method !== 'DELETE';
  if (hasBody) {
    for (const [what, headers, body] of BAD_BODIES) {
      cases.push({ what, method: route.method, path, headers: { ...auth, ...headers }, body });
    }
  }
  for (const query of BAD_QUERIES) {
    cases.push({
      what: `query ${query.slice(0, 40)}`,
      method: route.method,
      path: `${path}${query}`,
      headers: auth,
    });
  }
  if (route.path.includes(':')) {
    const params = [...route.path.matchAll(/:([A-Za-z_]+)/g)].map(([, name]) => name);
    const fixed = new Set(target.fixedParams ?? []);
    const keepFixed = params.some((name) => !fixed.has(name ?? ''));
    const bad = (id: string) => (name: string) => (keepFixed && fixed.has(name) ? known(name) : id);
    for (const id of BAD_IDS) {
      cases.push({
        what: `id ${id.slice(0, 20)}`,
        method: route.method,
        path: withParams(route.path, bad(id)),
        headers: auth,
      });
    }
    cases.push({
      what: 'unknown ids',
      method: route.method,
      path: withParams(route.path, (name) => bad(randomUUID())(name)),
      headers: auth,
    });
  }
  const json = hasBody ? { headers: JSON_TYPE, body: '{}' } : { headers: {} };
  cases.push({
    what: 'no key',
    method: route.method,
    path,
    headers: json.headers,
    body: json.body,
  });
  cases.push({
    what: 'a wrong key',
    method: route.method,
    path,
    headers: { ...json.headers, 'x-api-key': 'wrong-key-0123456789' },
    body: json.body,
  });
  cases.push({
    what: "another tenant's key",
    method: route.method,
    path,
    headers: { ...json.headers, 'x-api-key': target.otherKey },
    body: json.body,
  });
  return cases;
}

async function send(target: FuzzTarget, request: FuzzCase, report: FuzzReport): Promise<void> {
  const label = `${target.name} ${request.method} ${request.path.slice(0, 120)} (${request.what})`;
  report.sent++;
  let response: Response;
  let text: string;
  try {
    response = await fetch(`${target.url}${request.path}`, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      signal: AbortSignal.timeout(HANG_MS),
    });
    text = await response.text();
  } catch (error) {
    report.failures.push(`${label}: no answer within ${HANG_MS} ms (${String(error)})`);
    return;
  }
  report.statuses.set(response.status, (report.statuses.get(response.status) ?? 0) + 1);
  if (response.status >= 500)
    report.failures.push(`${label}: ${response.status} ${text.slice(0, 300)}`);
  if (LEAK.test(text))
    report.failures.push(`${label}: the body shows a stack or a host path: ${text.slice(0, 300)}`);
  if (response.status >= 400) {
    let detail: unknown;
    try {
      detail = (JSON.parse(text) as { detail?: unknown }).detail;
    } catch {
      detail = undefined;
    }
    if (detail === undefined)
      report.failures.push(
        `${label}: ${response.status} without a JSON detail: ${text.slice(0, 200)}`,
      );
  }
}

/**
 * Sends every bad request of the suite to every route, one route's batch at a time, and checks
 * after each batch that the server still answers `/ok`. Routes that delete go last, so that the
 * known ids reach the other routes first.
 */
export async function fuzz(target: FuzzTarget): Promise<FuzzReport> {
  const report: FuzzReport = { routes: 0, sent: 0, statuses: new Map(), failures: [] };
  const ordered = [...target.routes].sort(
    (a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE'),
  );
  const deadline = Date.now() + (target.budgetMs ?? Infinity);
  for (const route of ordered) {
    if (Date.now() > deadline) break;
    report.routes++;
    for (const request of casesOf(target, route)) await send(target, request, report);
    const ok = await fetch(`${target.url}/ok`, { signal: AbortSignal.timeout(HANG_MS) }).catch(
      (error: unknown) => error,
    );
    if (!(ok instanceof Response) || ok.status !== 200) {
      report.failures.push(
        `${target.name}: /ok does not answer after ${route.method} ${route.path}`,
      );
    }
  }
  return report;
}

export function describeReport(name: string, routes: number, report: FuzzReport): string {
  const statuses = [...report.statuses.entries()]
    .sort(([a], [b]) => a - b)
    .map(([status, count]) => `${status}: ${count}`)
    .join(', ');
  const left = report.routes < routes ? ` (${routes - report.routes} left out of time)` : '';
  return `fuzz ${name}: ${report.routes} routes${left}, ${report.sent} requests, ${report.failures.length} failures; statuses ${statuses}`;
}
