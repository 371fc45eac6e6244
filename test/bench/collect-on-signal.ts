import { readFileSync, rmSync } from 'node:fs';
import { setFlagsFromString, writeHeapSnapshot } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { COLLECTED, COLLECTS_ON_SIGNAL, SNAPSHOT_REQUEST } from './soak.bench-phase.js';

/**
 * Loaded into the benchmark's runtime (`NODE_OPTIONS=--import=<this file>`): each SIGUSR2 makes
 * the process collect its garbage in full, then print `berth-bench-collected <n> <heap used>`,
 * so that the soak reads the heap that survives rather than a point anywhere on the saw-tooth
 * (soak.bench-phase.ts). When the soak has left a request at SNAPSHOT_REQUEST (the path of the
 * heap snapshot it wants), the collection is followed by that snapshot. Nothing else changes.
 */
setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;
let collections = 0;
const snapshotRequest = process.env[SNAPSHOT_REQUEST];

/** Writes the heap snapshot the soak asked for, if it asked for one. */
function snapshotIfAsked(): void {
  if (!snapshotRequest) return;
  let target: string;
  try {
    target = readFileSync(snapshotRequest, 'utf8').trim();
  } catch {
    return;
  }
  rmSync(snapshotRequest, { force: true });
  writeHeapSnapshot(target);
}

process.on('SIGUSR2', () => {
  collect();
  snapshotIfAsked();
  collections += 1;
  process.stdout.write(`${COLLECTED} ${collections} ${process.memoryUsage().heapUsed}\n`);
});
process.stdout.write(`${COLLECTS_ON_SIGNAL}\n`);
