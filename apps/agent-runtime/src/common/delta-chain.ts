import type { JsonValue } from '#libs/event-store';
import { jsonTextLength } from './json-text-length.js';

/** Where a value stored as a delta stands in its chain of deltas. */
export interface DeltaChain {
  /** Deltas since the last value stored whole (0: this one is). */
  readonly chain: number;
  /** About the JSON text those deltas took. */
  readonly chainBytes: number;
}

export const WHOLE: DeltaChain = { chain: 0, chainBytes: 0 };

/**
 * The most deltas a chain may hold before a value is stored whole again: reading one value from
 * the log folds at most this many. Long enough for the byte rule to be the one that ends chains in
 * conversations of a few hundred messages (see the growing-thread benchmark).
 */
export const MAX_DELTA_CHAIN = 256;

/** The chain a value stored as `delta` against `base` ends. */
export function chainAfter(base: DeltaChain, delta: JsonValue): DeltaChain {
  return { chain: base.chain + 1, chainBytes: base.chainBytes + jsonTextLength(delta) };
}

/**
 * Whether the next value may be stored as a delta on `base`: a chain ends once its deltas took as
 * many bytes as the value whole would (so what is stored grows by at most about twice what
 * changed, however large the value), or at `maxChain` deltas.
 */
export function continuesChain(
  base: DeltaChain,
  wholeBytes: number,
  maxChain = MAX_DELTA_CHAIN,
): boolean {
  return base.chain < maxChain && base.chainBytes < wholeBytes;
}
