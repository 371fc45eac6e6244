import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { COLLECTED, COLLECTS_ON_SIGNAL } from './soak.bench-phase.js';

/**
 * Loaded into the benchmark's runtime (`NODE_OPTIONS=--import=<this file>`): each SIGUSR2 makes
 * the process collect its garbage in full, then print `berth-bench-collected <n> <heap used>`,
 * so that the soak reads the heap that survives rather than a point anywhere on the saw-tooth
 * (soak.bench-phase.ts). Nothing else changes.
 */
setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;
let collections = 0;
process.on('SIGUSR2', () => {
  collect();
  collections += 1;
  process.stdout.write(`${COLLECTED} ${collections} ${process.memoryUsage().heapUsed}\n`);
});
process.stdout.write(`${COLLECTS_ON_SIGNAL}\n`);
