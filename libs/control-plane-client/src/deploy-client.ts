import { SilenceWatch } from './silence-watch.js';
import { readSse } from './sse.js';
import type { AuditRecord, VerificationAnswer } from '#libs/event-store';

/** A deployment's secret as the API takes it (its value is never answered back). */
export interface Secret {
  readonly name: string;
  readonly value: string;
}

export type DeploymentType = 'dev' | 'prod';
export type LogType = 'build' | 'deploy';

export interface Deployment {
  readonly id: string;
  readonly name: string;
  readonly source: string;
  readonly status: string;
  readonly latest_revision_id: string | null;
  readonly active_revision_id: string | null;
  readonly source_config: {
    readonly deployment_type?: DeploymentType | null;
    readonly custom_url?: string | null;
    readonly listener_id?: string | null;
  };
  readonly source_revision_config: Readonly<Record<string, unknown>>;
  readonly secrets: readonly Secret[];
  readonly created_at: string;
  readonly updated_at: string;
}

export interface Revision {
  readonly id: string;
  readonly status: string;
  readonly status_message: string | null;
  readonly created_at: string;
  readonly updated_at: string;
  readonly active?: boolean;
  readonly source_revision_config?: Readonly<Record<string, unknown>>;
}

/** What changed from one revision of a deployment (`against`) to another. */
export interface RevisionChanges {
  readonly revision_id: string;
  readonly against: string | null;
  readonly source_kept: boolean;
  readonly source_reason: string | null;
  readonly capped: string | null;
  readonly files: readonly {
    readonly path: string;
    readonly change: 'added' | 'removed' | 'modified';
    readonly diff?: string;
    readonly reason?: string;
  }[];
  readonly dependencies: readonly {
    readonly name: string;
    readonly kind: string;
    readonly from: string | null;
    readonly to: string | null;
    readonly resolved_from: string | null;
    readonly resolved_to: string | null;
  }[];
  readonly graphs: readonly {
    readonly graph_id: string;
    readonly change: 'added' | 'removed' | 'modified';
    readonly from: string | null;
    readonly to: string | null;
  }[];
  readonly secrets: readonly { readonly name: string; readonly change: string }[];
  readonly config: readonly {
    readonly field: string;
    readonly from: unknown;
    readonly to: unknown;
  }[];
  readonly commit_range: {
    readonly from: string | null;
    readonly to: string | null;
    /** Newest first. */
    readonly commits: readonly { readonly sha: string; readonly message: string }[] | null;
    readonly truncated: boolean;
    readonly reason: string | null;
  } | null;
}

export interface LogLine {
  readonly id: string;
  readonly timestamp: string;
  readonly type: LogType;
  readonly message: string;
}

/** A new revision of a followed deployment, taking over from the one before. */
export interface RevisionTakeover {
  readonly revision_id: string;
  readonly replaces: string;
}

export type FollowedLog =
  /** First, once the control plane answers: the revision whose lines come first (if it says). */
  | { readonly kind: 'following'; readonly revision_id: string | null }
  | { readonly kind: 'log'; readonly line: LogLine }
  | ({ readonly kind: 'revision' } & RevisionTakeover);

export interface Listener {
  readonly id: string;
  readonly name: string;
  readonly compute_type: 'local' | 'cluster';
  readonly compute_config?: Readonly<Record<string, unknown>>;
}

export interface Page<T> {
  readonly resources: T[];
  readonly offset: number;
}

export interface IssuedUpload {
  readonly upload_url: string;
  readonly object_path: string;
  readonly expires_at?: string;
}

/** An answer of the control plane other than success; `message` is one line for the user. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export interface ClientOptions {
  readonly baseUrl: string;
  readonly apiKey: string;
  /** Where the key came from, named when the control plane refuses it. */
  readonly apiKeyOrigin: string;
  /** Per request, except uploads and followed logs. */
  readonly timeoutMs?: number;
  /** How long a followed stream may stay silent, its heartbeats included (30 s). */
  readonly followSilenceMs?: number | undefined;
}

const REQUEST_TIMEOUT_MS = 30_000;
const UPLOAD_TIMEOUT_MS = 10 * 60_000;
/** How long a followed stream may stay silent, its heartbeats included, before it is given up. */
const FOLLOW_SILENCE_MS = 30_000;

type Query = Readonly<Record<string, string | number | boolean | undefined>>;

/** The control plane's deployment API (interface part A), as the CLI uses it. */
export class DeployClient {
  private readonly baseUrl: string;

  constructor(private readonly options: ClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
  }

  get url(): string {
    return this.baseUrl;
  }

  listDeployments(query: Query = {}): Promise<Page<Deployment>> {
    return this.request('GET', '/v2/deployments', { query });
  }

  /** Every deployment, page after page. */
  async allDeployments(query: Query = {}): Promise<Deployment[]> {
    const all: Deployment[] = [];
    for (let offset = 0; ;) {
      const page = await this.listDeployments({ ...query, limit: 100, offset });
      all.push(...page.resources);
      if (page.resources.length < 100 || page.offset <= offset) return all;
      offset = page.offset;
    }
  }

  /** The deployment with exactly this name, if there is one. */
  async findByName(name: string): Promise<Deployment | undefined> {
    const page = await this.listDeployments({ name, limit: 100 });
    return page.resources.find((deployment) => deployment.name === name);
  }

  getDeployment(id: string): Promise<Deployment> {
    return this.request('GET', `/v2/deployments/${encodeURIComponent(id)}`);
  }

  createDeployment(body: object): Promise<Deployment> {
    return this.request('POST', '/v2/deployments', { body });
  }

  patchDeployment(id: string, body: object): Promise<Deployment> {
    return this.request('PATCH', `/v2/deployments/${encodeURIComponent(id)}`, { body });
  }

  async deleteDeployment(id: string): Promise<void> {
    await this.request('DELETE', `/v2/deployments/${encodeURIComponent(id)}`);
  }

  listRevisions(id: string, query: Query = {}): Promise<Page<Revision>> {
    return this.request('GET', `/v2/deployments/${encodeURIComponent(id)}/revisions`, { query });
  }

  getRevision(id: string, revisionId: string): Promise<Revision> {
    return this.request(
      'GET',
      `/v2/deployments/${encodeURIComponent(id)}/revisions/${encodeURIComponent(revisionId)}`,
    );
  }

  /** What changed in the revision: against the one it replaced, or `against` when given. */
  revisionChanges(id: string, revisionId: string, against?: string): Promise<RevisionChanges> {
    return this.request(
      'GET',
      `/v2/deployments/${encodeURIComponent(id)}/revisions/${encodeURIComponent(revisionId)}/changes`,
      { query: against === undefined ? {} : { against } },
    );
  }

  listListeners(): Promise<Page<Listener>> {
    return this.request('GET', '/v2/listeners');
  }

  issueUpload(id: string): Promise<IssuedUpload> {
    return this.request('POST', `/v2/deployments/${encodeURIComponent(id)}/upload-url`);
  }

  /** PUTs a gzip tarball to a signed upload URL (the signature stands in for the API key). */
  async upload(uploadUrl: string, archive: Buffer): Promise<void> {
    const response = await this.fetch(uploadUrl, {
      method: 'PUT',
      headers: { 'content-type': 'application/gzip' },
      body: new Uint8Array(archive),
      signal: AbortSignal.timeout(UPLOAD_TIMEOUT_MS),
    });
    await this.check(response);
    await response.body?.cancel();
  }

  /** The log lines kept so far, of one revision or (without `revisionId`) of the deployment. */
  async logs(
    id: string,
    revisionId: string | undefined,
    type: LogType | undefined,
  ): Promise<{ revision_id: string | null; resources: LogLine[] }> {
    return this.request('GET', this.logsPath(id, revisionId), { query: { type } });
  }

  /**
   * The log lines kept so far, then new ones as they are written, until `signal` aborts, the
   * connection ends, or nothing (not even a heartbeat) came for 30 s (`followSilenceMs`): a revision's, or the deployment's (no revision named), where a new
   * revision's lines come after it is announced. Nothing at all when there is no revision yet.
   */
  async *followLogs(
    id: string,
    revisionId: string | undefined,
    type: LogType | undefined,
    signal?: AbortSignal,
  ): AsyncGenerator<FollowedLog> {
    const url = this.urlOf(this.logsPath(id, revisionId), { type, follow: true });
    // The control plane sends a heartbeat every 10 s: a longer silence is a platform gone quiet.
    const silence = new SilenceWatch(this.options.followSilenceMs ?? FOLLOW_SILENCE_MS);
    try {
      const response = await this.fetch(url, {
        headers: { 'x-api-key': this.options.apiKey, accept: 'text/event-stream' },
        signal: signal ? AbortSignal.any([signal, silence.signal]) : silence.signal,
      });
      await this.check(response);
      if (!response.headers.get('content-type')?.includes('text/event-stream')) {
        // No revision yet: the control plane answers with an empty page instead of a stream.
        await response.body?.cancel();
        return;
      }
      if (!response.body) return;
      yield { kind: 'following', revision_id: response.headers.get('x-revision-id') };
      for await (const event of readSse(response.body.pipeThrough(silence.listener()))) {
        if (event.event === 'log') yield { kind: 'log', line: JSON.parse(event.data) as LogLine };
        if (event.event === 'revision') {
          yield { kind: 'revision', ...(JSON.parse(event.data) as RevisionTakeover) };
        }
      }
    } finally {
      silence.stop();
    }
  }

  /** The platform's event log checked against its hash chain (and `head`, `position:hash`). */
  verifyAudit(head: string | undefined): Promise<VerificationAnswer> {
    // A long log takes a while to walk: the per-request timeout would cut it short.
    return this.request('GET', '/v2/audit/verify', { query: { head }, timeoutMs: 30 * 60_000 });
  }

  /** A deployment's events recorded in the period (ISO 8601), with their chain positions. */
  exportAudit(
    deploymentId: string,
    period: { since?: string; until?: string },
  ): Promise<{ resources: AuditRecord[] }> {
    return this.request('GET', '/v2/audit/export', {
      query: { deployment_id: deploymentId, since: period.since, until: period.until },
      timeoutMs: 5 * 60_000,
    });
  }

  private logsPath(id: string, revisionId: string | undefined): string {
    const deployment = `/v2/deployments/${encodeURIComponent(id)}`;
    return revisionId
      ? `${deployment}/revisions/${encodeURIComponent(revisionId)}/logs`
      : `${deployment}/logs`;
  }

  private urlOf(path: string, query: Query = {}): string {
    const url = new URL(`${this.baseUrl}${path}`);
    for (const [name, value] of Object.entries(query)) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    return url.toString();
  }

  protected async request<T>(
    method: string,
    path: string,
    options: { query?: Query; body?: object; timeoutMs?: number; signal?: AbortSignal } = {},
  ): Promise<T> {
    const timeout = AbortSignal.timeout(
      options.timeoutMs ?? this.options.timeoutMs ?? REQUEST_TIMEOUT_MS,
    );
    const headers: Record<string, string> = {
      'x-api-key': this.options.apiKey,
      accept: 'application/json',
    };
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const response = await this.fetch(this.urlOf(path, options.query), {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: options.signal ? AbortSignal.any([timeout, options.signal]) : timeout,
    });
    await this.check(response);
    const text = await response.text();
    return (text ? JSON.parse(text) : undefined) as T;
  }

  /** `fetch`, with a failure to connect turned into one line naming the server. */
  private async fetch(url: string, init: RequestInit): Promise<Response> {
    try {
      return await fetch(url, init);
    } catch (error) {
      if (init.signal?.aborted && (init.signal.reason as Error | undefined)?.name === 'AbortError')
        throw error;
      throw new ApiError(0, `cannot reach the control plane at ${this.baseUrl} (${reason(error)})`);
    }
  }

  private async check(response: Response): Promise<void> {
    if (response.ok) return;
    const detail = errorDetail(await response.text().catch(() => ''));
    if (response.status === 401) {
      throw new ApiError(
        401,
        `the control plane refused the API key (401): ${detail || 'unauthorized'}; ` +
          `the key came from ${this.options.apiKeyOrigin}`,
      );
    }
    throw new ApiError(
      response.status,
      `${response.status} ${detail || response.statusText || 'error'}`,
    );
  }
}

/** Why a request did not get an answer, in a few words (ECONNREFUSED, a timeout...). */
function reason(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error.name === 'TimeoutError') return 'no answer in time';
  const cause = error.cause as (Error & { code?: string }) | undefined;
  if (cause?.code) return cause.code;
  if (cause?.message) return cause.message;
  return error.message;
}

/** The `detail` of an error body: a string (4xx) or validation errors (422), as one line. */
export function errorDetail(text: string): string {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return text.trim().split('\n')[0]?.slice(0, 300) ?? '';
  }
  const detail = (body as { detail?: unknown } | null)?.detail;
  if (typeof detail === 'string') return detail;
  if (Array.isArray(detail)) {
    return detail
      .map((item: { loc?: unknown; msg?: unknown }) => {
        const loc = Array.isArray(item.loc) ? item.loc.map(String).join('.') : '';
        const msg = typeof item.msg === 'string' ? item.msg : JSON.stringify(item);
        return loc ? `${loc}: ${msg}` : msg;
      })
      .join('; ');
  }
  return text.trim().slice(0, 300);
}
