import type { JsonObject, JsonValue } from '#libs/event-store';
import {
  chainAfter,
  continuesChain,
  MAX_DELTA_CHAIN,
  WHOLE,
  type DeltaChain,
} from '../common/delta-chain.js';
import { objectDelta, parseDeltaReferences } from '../common/json-delta.js';
import { isJsonObject } from '../common/json-object.js';
import { jsonTextLength } from '../common/json-text-length.js';

/**
 * How a `values` chunk stored as what changed relates to what it extends: the previous chunk of
 * the same name (`values`, or `values|<namespace>`) in the same run stream, numbered `seq`, or,
 * for a run's first root chunk, the final values (`RunFinished`) of the earlier run `run` of the
 * thread (`seq` is then -1). Its data is an `ObjectDelta` of that with these `prefixes` and
 * `unchanged` keys. `head` is the chain's first chunk in this stream (stored whole, or extending
 * an earlier run): a reader that has not seen the chain reads from there.
 */
export type ChunkExtension = {
  run?: string;
  seq: number;
  head: number;
  prefixes: Record<string, number>;
  unchanged: string[];
};

/** The final values of an earlier run of the thread, which a run's first chunk may extend. */
export interface FinishedValues {
  readonly runId: string;
  readonly values: JsonObject;
  /** Where they stand in their chain of deltas, as the run's outcome stored them. */
  readonly chain: DeltaChain;
}

/** The root graph's values chunks: the only ones an earlier run's final values may seed. */
export const ROOT_VALUES = 'values';

/** Whether chunks of this name carry the whole state (which a run's steps mostly extend). */
export function isValuesChunk(name: string): boolean {
  return name === ROOT_VALUES || name.startsWith(`${ROOT_VALUES}|`);
}

interface LastChunk extends DeltaChain {
  /** Set for an earlier run's final values. */
  readonly run?: string;
  readonly seq: number;
  readonly head: number;
  readonly whole: JsonObject;
}

/**
 * Decides how each `values` chunk of one run's stream is stored: whole, or as what changed since
 * the previous one of the same name (the first root one: since the thread's earlier run's final
 * values, when the writer is given them), until the chain ends (`continuesChain`). A run's chunks
 * are appended in order by one writer, which fails for good at its first failed append, so a
 * delta never lands without the chunk it extends; an earlier run's outcome is in the log for good.
 */
export class ValuesChunkEncoder {
  private readonly last = new Map<string, LastChunk>();

  constructor(
    private seed?: FinishedValues,
    private readonly maxChain = MAX_DELTA_CHAIN,
  ) {}

  encode(
    seq: number,
    name: string,
    data: JsonValue,
  ): { data: JsonValue; extends?: ChunkExtension } {
    if (!isValuesChunk(name) || !isJsonObject(data)) return { data };
    const previous = this.last.get(name) ?? this.seeded(name, seq);
    const link = this.linkTo(previous, data);
    if (!link || !previous) {
      this.last.set(name, { seq, head: seq, whole: data, ...WHOLE });
      return { data };
    }
    this.last.set(name, { seq, head: previous.head, whole: data, ...link.chain });
    return { data: link.value, extends: link.extension };
  }

  /**
   * The run's final values as its outcome stores them: what changed since its last root values
   * chunk (or, with none, since the earlier run's final values), while the chain goes on.
   */
  encodeFinal(values: JsonValue): {
    values: JsonValue;
    values_extends: ChunkExtension | null;
    chain: DeltaChain;
  } {
    const previous = this.last.get(ROOT_VALUES) ?? this.seeded(ROOT_VALUES, 0);
    const link = isJsonObject(values) ? this.linkTo(previous, values) : undefined;
    if (!link) return { values, values_extends: null, chain: WHOLE };
    return { values: link.value, values_extends: link.extension, chain: link.chain };
  }

  /** `whole` as what changed since `previous`, while the chain goes on and they share something. */
  private linkTo(
    previous: LastChunk | undefined,
    whole: JsonObject,
  ): { value: JsonObject; extension: ChunkExtension; chain: DeltaChain } | undefined {
    if (!previous || !continuesChain(previous, jsonTextLength(whole), this.maxChain)) {
      return undefined;
    }
    const delta = objectDelta(previous.whole, whole);
    if (!delta) return undefined;
    return {
      value: delta.value,
      extension: {
        ...(previous.run !== undefined ? { run: previous.run } : {}),
        seq: previous.seq,
        head: previous.head,
        prefixes: delta.prefixes,
        unchanged: delta.unchanged,
      },
      chain: chainAfter(previous, delta.value),
    };
  }

  /** The earlier run's final values as the base of the run's first root chunk (used once). */
  private seeded(name: string, seq: number): LastChunk | undefined {
    const seed = this.seed;
    if (name !== ROOT_VALUES || !seed) return undefined;
    this.seed = undefined;
    return { run: seed.runId, seq: -1, head: seq, whole: seed.values, ...seed.chain };
  }
}

/**
 * The extension of a stored chunk (`extends`) or outcome (`values_extends`); undefined when it has
 * none, an error when it is malformed.
 */
export function chunkExtensionOf(
  data: JsonObject,
  field: 'extends' | 'values_extends' = 'extends',
): ChunkExtension | undefined {
  const extension = data[field];
  if (extension === undefined || extension === null) return undefined;
  const fail = (reason: string) => new Error(`Malformed ${field}: ${reason}`);
  if (!isJsonObject(extension)) throw fail('not an object');
  const { run, seq, head } = extension;
  if (run !== undefined && typeof run !== 'string') throw fail('run is not a run id');
  if (typeof seq !== 'number' || typeof head !== 'number' || (run === undefined && head > seq)) {
    throw fail('seq and head are not chunk numbers');
  }
  return {
    ...(run !== undefined ? { run } : {}),
    seq,
    head,
    ...parseDeltaReferences(extension, fail),
  };
}
