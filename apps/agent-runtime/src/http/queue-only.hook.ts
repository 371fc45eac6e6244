import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** What a process that runs the queue's runs only still answers: its probes and its figures. */
const QUEUE_PROCESS_PATHS: ReadonlySet<string> = new Set(['/ok', '/metrics']);

/**
 * A process started with `BERTH_SERVE_API=false` runs the queue's runs and serves nothing of the
 * API: every other path is a 404 that says where the API is.
 */
export function serveQueueProcessPathsOnly(app: FastifyInstance): void {
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?')[0] ?? '';
    if (QUEUE_PROCESS_PATHS.has(path)) return undefined;
    await reply.status(404).send({
      detail: `${path} is not served here: this process runs the queue's runs only (BERTH_SERVE_API=false); the deployment's API servers serve the API`,
    });
    return reply;
  });
}
