import { Logger } from '@nestjs/common';
import { inProcessFetch } from '../common/in-process-client.js';
import { isRelativeWebhook } from '../common/webhook-target.js';
import type { RunCreatedData, RunFinishedData } from '../run-records/run.events.js';

const ATTEMPTS = 3;
const TIMEOUT_MS = 10_000;

/**
 * How the webhook is called: a URL over the network; a path (`/custom/webhook`) as a request to
 * this server, the application's routes included, handed over in process.
 */
function webhookFetch(url: string): typeof fetch {
  if (!isRelativeWebhook(url)) return fetch;
  const local = inProcessFetch();
  if (!local) throw new Error('the server is not listening yet');
  return local;
}

/** POSTs the finished run to its webhook, retrying a few times; a failure is logged, never thrown. */
export async function deliverWebhook(
  url: string,
  body: Record<string, unknown>,
  logger: Logger,
): Promise<void> {
  for (let attempt = 1; attempt <= ATTEMPTS; attempt += 1) {
    try {
      const response = await webhookFetch(url)(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      await response.body?.cancel();
      if (response.ok) return;
      logger.warn(
        `Webhook for run ${String(body.run_id)} answered ${response.status} (attempt ${attempt})`,
      );
    } catch (error) {
      logger.warn(
        `Webhook for run ${String(body.run_id)} failed (attempt ${attempt}): ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 200 * 2 ** attempt));
  }
}

/** What the webhook of a finished run is told: the run, how it ended, its final values. */
export function finishedRunWebhookBody(
  run: RunCreatedData,
  finished: RunFinishedData,
  startedAt: string,
): Record<string, unknown> {
  return {
    run_id: run.run_id,
    thread_id: run.thread_id,
    assistant_id: run.assistant_id,
    created_at: run.created_at,
    metadata: run.metadata,
    kwargs: run.kwargs,
    multitask_strategy: run.multitask_strategy,
    status: finished.status,
    error: finished.error,
    values: finished.values,
    run_started_at: startedAt,
    run_ended_at: finished.finished_at,
    webhook_sent_at: new Date().toISOString(),
  };
}
