import { Worker } from 'node:worker_threads';
import type { GraphSource, SourceSchemas } from './extract-source-schemas.js';

/** How long the compiler may take by default (`LANGGRAPH_SCHEMA_RESOLVE_TIMEOUT_MS` sets it). */
export const DEFAULT_SOURCE_SCHEMA_TIMEOUT_MS = 30_000;

/** The compiler's heap limit: a worker over it fails alone, the runtime keeps serving. */
const WORKER_HEAP_MB = 1024;

/** The timeout `LANGGRAPH_SCHEMA_RESOLVE_TIMEOUT_MS` names, when a positive integer. */
export function sourceSchemaTimeoutOf(value: string | undefined): number {
  const parsed = Number(value);
  return Number.isInteger(parsed) && parsed > 0 ? parsed : DEFAULT_SOURCE_SCHEMA_TIMEOUT_MS;
}

/**
 * Reads the graphs' schemas from their source in a worker thread (see extract-source-schemas),
 * so the compiler never holds the event loop; fails after `timeoutMs`.
 */
export function extractSourceSchemasInWorker(
  graphs: readonly GraphSource[],
  applicationDir: string,
  timeoutMs: number,
): Promise<SourceSchemas> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./source-schemas.worker.js', import.meta.url), {
      workerData: { graphs, applicationDir },
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
    });
    const timer = setTimeout(() => {
      void worker.terminate();
      reject(new Error(`reading the graphs' source took over ${timeoutMs} ms`));
    }, timeoutMs);
    const settle = (): void => {
      clearTimeout(timer);
      void worker.terminate();
    };
    worker.once('message', (schemas: SourceSchemas) => {
      settle();
      resolve(schemas);
    });
    worker.once('error', (error) => {
      settle();
      reject(error);
    });
    worker.once('exit', (code) => {
      settle();
      reject(new Error(`the schema worker exited with code ${code} before answering`));
    });
  });
}
