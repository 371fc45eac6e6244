import { parentPort, workerData } from 'node:worker_threads';
import { extractSourceSchemas, type GraphSource } from './extract-source-schemas.js';

/** Runs the compiler off the runtime's event loop: the answer is posted back once. */
const { graphs, applicationDir } = workerData as {
  graphs: GraphSource[];
  applicationDir: string;
};
parentPort?.postMessage(extractSourceSchemas(graphs, applicationDir));
