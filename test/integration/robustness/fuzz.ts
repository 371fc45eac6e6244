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

/**
 * What a request of a route's own language must get, beyond the error rule: a command, an answer
 * of the protocol with HTTP 200; a body that is not one, the protocol's 400; a valid stream
 * request, the stream; a bad one, a 4xx; a JSON-RPC message, a JSON-RPC answer (never `{detail}`).
 */
type Expected = 'command' | 'not-a-command' | 'stream' | 'refused' | 'json-rpc';

interface FuzzCase {
  readonly what: string;
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: string;
  readonly speaks?: Route['speaks'];
  readonly expected?: Expected;
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

const json = (value: unknown): string => JSON.stringify(value);

/** Thread streaming v2 commands (`POST /threads/{id}/commands`): not commands, and bad ones. */
const COMMAND_BODIES: readonly [string, string, Expected][] = [
  ['an empty object', '{}', 'not-a-command'],
  ['a list of commands', json([{ id: 1, method: 'state.get' }]), 'not-a-command'],
  ['no id', json({ method: 'state.get', params: {} }), 'not-a-command'],
  ['no method', json({ id: 1, params: {} }), 'not-a-command'],
  ['a string id', json({ id: '1', method: 'state.get' }), 'not-a-command'],
  ['a negative id', json({ id: -1, method: 'state.get' }), 'not-a-command'],
  ['a fractional id', json({ id: 1.5, method: 'state.get' }), 'not-a-command'],
  ['a huge id', '{"id": 1e300, "method": "state.get"}', 'not-a-command'],
  ['a number method', json({ id: 1, method: 5 }), 'not-a-command'],
  ['an empty method', json({ id: 1, method: '' }), 'not-a-command'],
  ['list params', json({ id: 1, method: 'state.get', params: [] }), 'not-a-command'],
  ['an unknown command', json({ id: 2, method: 'no.such.command', params: {} }), 'command'],
  ['a 1 MB method', json({ id: 3, method: MEGABYTE_STRING }), 'command'],
  [
    'run.start, assistant_id a number',
    json({ id: 4, method: 'run.start', params: { assistant_id: 7 } }),
    'command',
  ],
  [
    'run.start, a 1 MB assistant_id',
    json({ id: 5, method: 'run.start', params: { assistant_id: MEGABYTE_STRING } }),
    'command',
  ],
  [
    'run.start, bad options',
    json({
      id: 6,
      method: 'run.start',
      params: { assistant_id: 'agent', input: 5, config: 'x', metadata: [], multitaskStrategy: 9 },
    }),
    'command',
  ],
  [
    'state.fork without checkpoint_id',
    json({ id: 7, method: 'state.fork', params: {} }),
    'command',
  ],
  [
    'state.fork, checkpoint_id not an id',
    json({ id: 8, method: 'state.fork', params: { checkpoint_id: '..%00' } }),
    'command',
  ],
  [
    'subscription.subscribe over HTTP',
    json({ id: 9, method: 'subscription.subscribe', params: { channels: ['values'] } }),
    'command',
  ],
  [
    'input.respond, bad responses',
    json({ id: 10, method: 'input.respond', params: { responses: [{ interrupt_id: 5 }, 1] } }),
    'command',
  ],
  [
    'input.respond, no such interrupt',
    json({ id: 11, method: 'input.respond', params: { interrupt_id: 'x', response: 1 } }),
    'command',
  ],
  [
    'input.inject, content a number',
    json({ id: 12, method: 'input.inject', params: { message: { content: 5 } } }),
    'command',
  ],
  [
    'state.get, bad keys and namespace',
    json({ id: 13, method: 'state.get', params: { keys: 'x', namespace: 5 } }),
    'command',
  ],
  [
    'state.get, an unknown namespace',
    json({ id: 14, method: 'state.get', params: { namespace: ['no', 'such'] } }),
    'command',
  ],
  [
    'state.listCheckpoints, bad limit and before',
    json({ id: 15, method: 'state.listCheckpoints', params: { limit: 1e300, before: 7 } }),
    'command',
  ],
  [
    'state.listCheckpoints, before not an id',
    json({ id: 16, method: 'state.listCheckpoints', params: { before: 'not-an-id' } }),
    'command',
  ],
  [
    'agent.getTree, run_id not an id',
    json({ id: 17, method: 'agent.getTree', params: { run_id: 'not-an-id' } }),
    'command',
  ],
  [
    'agent.getTree, run_id a number',
    json({ id: 18, method: 'agent.getTree', params: { run_id: 5 } }),
    'command',
  ],
];

/** Thread streaming v2 SSE requests (`POST /threads/{id}/stream/events`): valid ones stream. */
const EVENT_STREAM_BODIES: readonly [string, string, Expected][] = [
  ['a stream of values', json({ channels: ['values'] }), 'stream'],
  [
    'a stream with every option',
    json({ channels: ['lifecycle', 'custom:x'], namespaces: [['a']], depth: 0, since: 0 }),
    'stream',
  ],
  [
    'a stream from far ahead',
    json({ channels: ['values'], since: Number.MAX_SAFE_INTEGER }),
    'stream',
  ],
  ['no channels', json({ channels: [] }), 'refused'],
  ['an unknown channel', json({ channels: ['nope'] }), 'refused'],
  ['channels a string', json({ channels: 'values' }), 'refused'],
  ['a negative since', json({ channels: ['values'], since: -1 }), 'refused'],
  ['a huge since', '{"channels": ["values"], "since": 1e300}', 'refused'],
  ['a string depth', json({ channels: ['values'], depth: '1' }), 'refused'],
  ['namespaces a string', json({ channels: ['values'], namespaces: 'x' }), 'refused'],
  ['an unknown field', json({ channels: ['values'], follow: true }), 'refused'],
  ['a 1 MB channel', json({ channels: [MEGABYTE_STRING] }), 'refused'],
];

const A2A_1_0 = { 'a2a-version': '1.0' };

/** JSON-RPC 2.0 (MCP's and A2A's): not messages, bad ones, unknown methods, bad params. */
const JSON_RPC_BODIES: readonly [string, Record<string, string>, string][] = [
  ['an empty object', {}, '{}'],
  ['no method', {}, json({ jsonrpc: '2.0', id: 1 })],
  ['no id, no method', {}, json({ jsonrpc: '2.0' })],
  ['version 1.0', {}, json({ jsonrpc: '1.0', id: 1, method: 'tools/list' })],
  ['an object id', {}, json({ jsonrpc: '2.0', id: {}, method: 'tools/list' })],
  ['a number method', {}, json({ jsonrpc: '2.0', id: 1, method: 5 })],
  ['an empty batch', {}, '[]'],
  ['a batch of numbers', {}, '[1, 2]'],
  ['an unknown method', {}, json({ jsonrpc: '2.0', id: 1, method: 'no/such/method' })],
  ['a 1 MB method', {}, json({ jsonrpc: '2.0', id: 1, method: MEGABYTE_STRING })],
  ['a notification', {}, json({ jsonrpc: '2.0', method: 'notifications/initialized' })],
  ['initialize again', {}, json({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} })],
  [
    'tools/list, a number cursor',
    {},
    json({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { cursor: 5 } }),
  ],
  [
    'tools/call, a number name',
    {},
    json({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 5 } }),
  ],
  [
    'tools/call, an unknown tool',
    {},
    json({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'no_such_tool', arguments: {} },
    }),
  ],
  [
    'message/send, no message',
    {},
    json({ jsonrpc: '2.0', id: 1, method: 'message/send', params: {} }),
  ],
  [
    'message/send, wrong types',
    {},
    json({
      jsonrpc: '2.0',
      id: 1,
      method: 'message/send',
      params: { message: { role: 5, parts: 'x', messageId: 5 } },
    }),
  ],
  [
    'message/stream, an empty message',
    {},
    json({ jsonrpc: '2.0', id: 1, method: 'message/stream', params: { message: {} } }),
  ],
  [
    'tasks/get, a number id',
    {},
    json({ jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { id: 5 } }),
  ],
  [
    'tasks/cancel, an unknown task',
    {},
    json({ jsonrpc: '2.0', id: 'c', method: 'tasks/cancel', params: { id: randomUUID() } }),
  ],
  [
    'SendMessage, wrong types',
    A2A_1_0,
    json({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: { message: { role: 5, parts: {} } },
    }),
  ],
  [
    'GetTask, not a task',
    A2A_1_0,
    json({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'not-a-task' } }),
  ],
  [
    'GetTask, a number id',
    A2A_1_0,
    json({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 5 } }),
  ],
  [
    'message/send, a number taskId',
    {},
    json({
      jsonrpc: '2.0',
      id: 1,
      method: 'message/send',
      params: { message: { kind: 'message', role: 'user', messageId: 'm', taskId: 5, parts: [] } },
    }),
  ],
  [
    'ListTasks, bad params',
    A2A_1_0,
    json({ jsonrpc: '2.0', id: 1, method: 'ListTasks', params: { pageSize: 'x' } }),
  ],
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

/** The bodies in a route's own language, and what each must get. */
function ownBodies(speaks: Route['speaks']): [string, Record<string, string>, string, Expected][] {
  switch (speaks) {
    case 'protocol-commands':
      return COMMAND_BODIES.map(([what, body, expected]) => [what, {}, body, expected]);
    case 'protocol-events':
      return EVENT_STREAM_BODIES.map(([what, body, expected]) => [what, {}, body, expected]);
    case 'json-rpc':
      return JSON_RPC_BODIES.map(([what, headers, body]) => [what, headers, body, 'json-rpc']);
    case undefined:
      return [];
  }
}

function casesOf(target: FuzzTarget, route: Route): FuzzCase[] {
  const known = (name: string) => target.knownIds[name] ?? randomUUID();
  const path = withParams(route.path, known);
  const routeHeaders = Object.fromEntries(
    Object.entries(route.headers ?? {}).map(([name, value]) => [name, withParams(value, known)]),
  );
  const auth = { ...routeHeaders, 'x-api-key': target.key };
  const { speaks } = route;
  const cases: FuzzCase[] = [];
  const hasBody = route.method !== 'GET' && route.method !== 'DELETE';
  if (hasBody) {
    for (const [what, headers, body] of BAD_BODIES) {
      cases.push({
        what,
        method: route.method,
        path,
        headers: { ...auth, ...headers },
        body,
        speaks,
      });
    }
    for (const [what, headers, body, expected] of ownBodies(speaks)) {
      cases.push({
        what,
        method: route.method,
        path,
        headers: { ...auth, ...JSON_TYPE, ...headers },
        body,
        speaks,
        expected,
      });
    }
  }
  for (const query of BAD_QUERIES) {
    cases.push({
      what: `query ${query.slice(0, 40)}`,
      method: route.method,
      path: `${path}${path.includes('?') ? query.replace('?', '&') : query}`,
      headers: auth,
      speaks,
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
        speaks,
      });
    }
    cases.push({
      what: 'unknown ids',
      method: route.method,
      path: withParams(route.path, (name) => bad(randomUUID())(name)),
      headers: auth,
      speaks,
    });
  }
  const plain = hasBody
    ? { headers: { ...routeHeaders, ...JSON_TYPE }, body: '{}' }
    : { headers: routeHeaders };
  cases.push({
    what: 'no key',
    method: route.method,
    path,
    headers: plain.headers,
    body: plain.body,
    speaks,
  });
  cases.push({
    what: 'a wrong key',
    method: route.method,
    path,
    headers: { ...plain.headers, 'x-api-key': 'wrong-key-0123456789' },
    body: plain.body,
    speaks,
  });
  cases.push({
    what: "another tenant's key",
    method: route.method,
    path,
    headers: { ...plain.headers, 'x-api-key': target.otherKey },
    body: plain.body,
    speaks,
  });
  return cases;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A `{detail}` answer, or why not. */
function detailProblem(body: unknown): string | undefined {
  return isObject(body) && body.detail !== undefined ? undefined : 'without a JSON detail';
}

/** An answer of thread streaming v2 to command `id` (null: to a body that is no command). */
function protocolProblem(body: unknown, id: number | null): string | undefined {
  if (!isObject(body) || (body.type !== 'success' && body.type !== 'error'))
    return 'not a protocol answer';
  if (body.id !== id) return `a protocol answer to id ${String(body.id)}, not ${String(id)}`;
  if (body.type === 'success')
    return isObject(body.result) ? undefined : 'a success without result';
  if (typeof body.error !== 'string' || typeof body.message !== 'string')
    return 'a protocol error without error and message';
  // The protocol's word for a server fault (`asProtocolError`): a 500 in an HTTP 200.
  if (body.error === 'unknown_error') return 'a server fault (unknown_error)';
  return undefined;
}

/** A JSON-RPC 2.0 answer (or a batch of them), or why not. */
function jsonRpcProblem(body: unknown): string | undefined {
  if (Array.isArray(body)) return body.map(jsonRpcProblem).find((problem) => problem);
  if (!isObject(body) || body.jsonrpc !== '2.0') return 'not a JSON-RPC 2.0 answer';
  if (!['string', 'number'].includes(typeof body.id) && body.id !== null)
    return 'a JSON-RPC answer without an id';
  if ('result' in body) return undefined;
  const { error } = body;
  if (!isObject(error) || !Number.isInteger(error.code) || typeof error.message !== 'string')
    return 'a JSON-RPC error without code and message';
  // JSON-RPC's internal error: a 500 in whatever status the transport answers with.
  if (error.code === -32603) return `a server fault (-32603 ${error.message})`;
  return undefined;
}

/**
 * What is wrong with an answer by its route's rule, if anything. Every route: a non-2xx is JSON
 * with a detail. Thread streaming v2 commands: a command gets a protocol answer with 200; a JSON
 * body that is no command, the protocol's 400 (with a detail too). JSON-RPC routes: a message
 * gets a JSON-RPC answer, in whatever status; their other refusals (a key, a body that is not
 * JSON) may be `{detail}` as everywhere. SSE requests are checked by status before this.
 */
function ruleProblem(request: FuzzCase, status: number, text: string): string | undefined {
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (request.speaks === 'protocol-commands' && request.expected !== undefined) {
    const sent = JSON.parse(request.body ?? '{}') as { id?: number };
    if (request.expected === 'command')
      return status === 200 ? protocolProblem(body, sent.id ?? null) : 'a command without a 200';
    if (status !== 400) return 'not a command, without a 400';
    const problem = protocolProblem(body, null) ?? detailProblem(body);
    if (problem !== undefined) return problem;
    return (body as { error?: unknown }).error === 'invalid_argument'
      ? undefined
      : 'not a command, without invalid_argument';
  }
  if (request.expected === 'stream') return 'a valid stream request without a stream';
  if (request.expected === 'refused' && status < 400) return 'a bad stream request not refused';
  if (request.expected === 'json-rpc') {
    if (status === 202 && text === '') return undefined;
    return jsonRpcProblem(body);
  }
  if (status < 400) return undefined;
  if (request.speaks === 'json-rpc' && jsonRpcProblem(body) === undefined) return undefined;
  return detailProblem(body);
}

async function send(target: FuzzTarget, request: FuzzCase, report: FuzzReport): Promise<void> {
  const label = `${target.name} ${request.method} ${request.path.slice(0, 120)} (${request.what})`;
  report.sent++;
  let response: Response;
  let text: string;
  const done = new AbortController();
  try {
    response = await fetch(`${target.url}${request.path}`, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      signal: AbortSignal.any([done.signal, AbortSignal.timeout(HANG_MS)]),
    });
    // A stream that opened is an answer: its headers are read, the rest is not waited for.
    if (response.headers.get('content-type')?.startsWith('text/event-stream')) {
      done.abort();
      report.statuses.set(response.status, (report.statuses.get(response.status) ?? 0) + 1);
      if (response.status !== 200)
        report.failures.push(`${label}: an event stream with ${response.status}`);
      else if (request.expected === 'refused' || request.expected === 'not-a-command')
        report.failures.push(`${label}: a bad request opened a stream`);
      return;
    }
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
  const problem = response.status < 500 ? ruleProblem(request, response.status, text) : undefined;
  if (problem !== undefined)
    report.failures.push(`${label}: ${response.status} ${problem}: ${text.slice(0, 200)}`);
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
