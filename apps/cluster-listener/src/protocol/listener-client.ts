import { DeployClient, type Listener } from '#libs/control-plane-client';
import {
  REPORT_MESSAGE_MAX,
  type ListenerAssignments,
  type ListenerReport,
} from '#libs/listener-protocol';

/** Time a long poll is given beyond what it asked the control plane to wait. */
const POLL_GRACE_MS = 15_000;

/** The control plane's listener protocol (docs/kubernetes.md), over its REST API. */
export class ListenerClient extends DeployClient {
  async allListeners(): Promise<Listener[]> {
    return (await this.listListeners()).resources;
  }

  register(name: string, computeConfig: Readonly<Record<string, unknown>>): Promise<Listener> {
    return this.request('POST', '/v2/listeners', {
      body: { name, compute_type: 'cluster', compute_config: computeConfig },
    });
  }

  /** The listener's deployments; waits up to `waitSeconds` for a change from `after`. */
  assignments(
    listenerId: string,
    options: {
      readonly after?: string;
      readonly waitSeconds: number;
      readonly signal?: AbortSignal;
    },
  ): Promise<ListenerAssignments> {
    return this.request('GET', `/v2/listeners/${encodeURIComponent(listenerId)}/assignments`, {
      query: { after: options.after, wait: options.waitSeconds },
      timeoutMs: options.waitSeconds * 1000 + POLL_GRACE_MS,
      signal: options.signal,
    });
  }

  async report(listenerId: string, report: ListenerReport): Promise<void> {
    const message = report.message?.slice(0, REPORT_MESSAGE_MAX);
    await this.request('POST', `/v2/listeners/${encodeURIComponent(listenerId)}/reports`, {
      body: { ...report, ...(message === undefined ? {} : { message }) },
    });
  }
}
