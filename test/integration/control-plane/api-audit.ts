import { expect } from '@jest/globals';
import type { ApiResponse, ControlPlaneProcess } from '../../support/control-plane-process.js';
import type { Deployment } from '../../support/deployment-flow.js';

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const ISO_DATE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;
export const SECRET_MASK = '********';

export type Json = Record<string, unknown>;
export type Page<T = Json> = { resources: T[]; offset: number };

export interface Exchange {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly text: string;
}

/** Every exchange of a test file, so that afterAll can check all of them at once. */
export class ApiAudit {
  readonly exchanges: Exchange[] = [];

  constructor(readonly cp: ControlPlaneProcess) {}

  /** `cp.api`, recorded. */
  async api<T = Json>(
    method: string,
    path: string,
    body?: unknown,
    key?: string | null,
  ): Promise<ApiResponse<T>> {
    const response = await this.cp.api<T>(method, path, body, key);
    this.record(method, path, response.status, JSON.stringify(response.body));
    return response;
  }

  /** A request with raw headers and body, recorded; the body parsed when it is JSON. */
  async fetch(
    method: string,
    path: string,
    init: { headers?: Record<string, string>; body?: string | Buffer } = {},
  ): Promise<ApiResponse<Json | null>> {
    const url = path.startsWith('http') ? path : `${this.cp.url}${path}`;
    const response = await fetch(url, { method, headers: init.headers, body: init.body });
    const text = await response.text();
    this.record(method, new URL(url).pathname, response.status, text);
    let body: Json | null = null;
    if (text) body = JSON.parse(text) as Json;
    return { status: response.status, body };
  }

  record(method: string, path: string, status: number, text: string): void {
    this.exchanges.push({ method, path, status, text });
  }

  /** No response was a 5xx and the process logged no error or stack trace. */
  expectNoServerErrors(): void {
    const failed = this.exchanges.filter((exchange) => exchange.status >= 500);
    expect(failed).toEqual([]);
    const output = this.cp.output();
    expect(output).not.toContain('Internal server error');
    expect(output).not.toMatch(/^\s+at .+\(.+:\d+:\d+\)$/m);
    expect(output).not.toMatch(/\bERROR\b/);
  }

  /** None of these values appears anywhere in the text of any response. */
  expectNeverAnswered(values: readonly string[]): void {
    for (const value of values) {
      const leaks = this.exchanges.filter((exchange) => exchange.text.includes(value));
      expect(leaks.map(({ method, path }) => `${method} ${path}`)).toEqual([]);
    }
  }
}

/** A 422 in the HTTPValidationError shape, with an issue at each of the given locations. */
export function expectValidationError(
  response: ApiResponse<Json | null>,
  ...locs: (string | number)[][]
): void {
  expect(response.status).toBe(422);
  const detail = response.body?.detail as { loc: unknown; msg: unknown; type: unknown }[];
  expect(Array.isArray(detail)).toBe(true);
  expect(detail.length).toBeGreaterThan(0);
  for (const issue of detail) {
    expect(Object.keys(issue).sort()).toEqual(['loc', 'msg', 'type']);
    expect(Array.isArray(issue.loc)).toBe(true);
    expect(typeof issue.msg).toBe('string');
    expect(typeof issue.type).toBe('string');
  }
  for (const loc of locs) expect(detail.map((issue) => issue.loc)).toContainEqual(loc);
}

/** A 4xx with a string detail that matches. */
export function expectDetail(
  response: ApiResponse<Json | null>,
  status: number,
  detail: RegExp | string,
): void {
  expect({ status: response.status, detail: response.body?.detail }).toEqual({
    status,
    detail:
      typeof detail === 'string' ? expect.stringContaining(detail) : expect.stringMatching(detail),
  });
}

/** Polls until `check` gives a value, or fails with what it last saw. */
export async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline)
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

let counter = 0;
/** A deployment name no other test of the run uses. */
export function uniqueName(label: string): string {
  counter += 1;
  return `${label}-${Date.now().toString(36)}-${counter}`;
}

/** An uploaded-source deployment without a tarball: no revision, nothing built. */
export async function postSourceDeployment(
  audit: ApiAudit,
  name: string,
  extra: Json = {},
): Promise<Deployment> {
  const created = await audit.api<Deployment>('POST', '/v2/deployments', {
    name,
    source: 'internal_source',
    source_revision_config: { graph_config_path: 'langgraph.json' },
    ...extra,
  });
  expect(created.status).toBe(201);
  return created.body;
}

/** A prebuilt-image deployment on a cluster listener: nothing on this machine runs it. */
export async function postExternalDeployment(
  audit: ApiAudit,
  listenerId: string,
  name: string,
  extra: Json = {},
): Promise<Deployment> {
  const created = await audit.api<Deployment>('POST', '/v2/deployments', {
    name,
    source: 'external_container',
    source_config: { listener_id: listenerId },
    source_revision_config: { image_uri: 'registry.example/agent:1' },
    ...extra,
  });
  expect(created.status).toBe(201);
  return created.body;
}

export async function registerClusterListener(audit: ApiAudit, name = 'k8s'): Promise<string> {
  const listener = await audit.api('POST', '/v2/listeners', { name, compute_type: 'cluster' });
  expect(listener.status).toBe(201);
  expect(listener.body).toMatchObject({
    id: expect.stringMatching(UUID),
    name,
    compute_type: 'cluster',
  });
  return listener.body.id as string;
}
