import type { MultitaskStrategy } from './run.events.js';

export type Admission =
  | {
      readonly kind: 'admit';
      readonly cancel: readonly string[];
      readonly action: 'interrupt' | 'rollback' | null;
    }
  | { readonly kind: 'reject'; readonly inflight: readonly string[] };

/**
 * What a new run does to the runs its thread already has waiting or running: `reject` refuses the
 * new run, `enqueue` lets it wait its turn, `interrupt` and `rollback` cancel the others.
 */
export function admitRun(strategy: MultitaskStrategy, inflight: readonly string[]): Admission {
  if (inflight.length === 0) return { kind: 'admit', cancel: [], action: null };
  switch (strategy) {
    case 'reject':
      return { kind: 'reject', inflight };
    case 'enqueue':
      return { kind: 'admit', cancel: [], action: null };
    case 'interrupt':
    case 'rollback':
      return { kind: 'admit', cancel: inflight, action: strategy };
  }
}
