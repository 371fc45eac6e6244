import type { EventStore, JsonObject, RecordedEvent } from '#libs/event-store';
import { foldObjectDelta } from '../common/json-delta.js';
import { isJsonObject } from '../common/json-object.js';
import { finishedValuesMemoryOf, type FinishedValuesMemory } from './finished-values-memory.js';
import { runStream } from './run.events.js';
import {
  chunkExtensionOf,
  isValuesChunk,
  ROOT_VALUES,
  type ChunkExtension,
} from './values-chunk-delta.js';

interface Known {
  readonly seq: number;
  readonly whole: JsonObject;
}

/** Where a run's outcome may sit: last, or before a `RunDeleted`. */
const OUTCOME_SEARCH = 3;
/** Chunks and outcomes a reader keeps whole, the oldest forgotten first. */
const MAX_KNOWN = 1_000;

/**
 * Gives a reader of run streams every `values` chunk whole, as it was emitted: a chunk stored as
 * what changed is folded onto what it extends, which the reader has most often just seen (it keeps
 * the last chunk of each name per stream); otherwise it reads the chain from its head (a reader
 * that starts in the middle of a run: a resume, a join), and an earlier run's final values from
 * that run's outcome, which this process most often remembers (FinishedValuesMemory: a thread's
 * last run recorded here), so that a chain that spans a thread's runs is not read back run by run.
 * Other events pass unchanged. One per reader.
 */
export class ValuesChunkExpander {
  private readonly known = new Map<string, Known>();

  constructor(
    private readonly store: EventStore,
    private readonly finished: FinishedValuesMemory = finishedValuesMemoryOf(store),
  ) {}

  async expand(event: RecordedEvent): Promise<RecordedEvent> {
    if (event.type === 'RunFinished') return this.expandOutcome(event);
    if (event.type !== 'RunStepEmitted') return event;
    const { seq, event: name, data } = event.data;
    if (typeof seq !== 'number' || typeof name !== 'string' || !isValuesChunk(name)) return event;
    const key = `${event.streamId}\n${name}`;
    const extension = chunkExtensionOf(event.data);
    if (!extension) {
      if (isJsonObject(data)) this.remember(key, { seq, whole: data });
      return event;
    }
    if (!isJsonObject(data)) {
      throw new Error(`Values chunk ${seq} of ${event.streamId} is not an object`);
    }
    const base = await this.baseOf(event, name, extension);
    const whole = foldObjectDelta(base, { value: data, ...extension });
    this.remember(key, { seq, whole });
    return { ...event, data: { seq, event: name, data: whole } };
  }

  /**
   * A run's outcome with its final values whole, kept: the thread's next run most often extends
   * them, and is then folded without reading this run again.
   */
  private async expandOutcome(event: RecordedEvent): Promise<RecordedEvent> {
    const extension = chunkExtensionOf(event.data, 'values_extends');
    const values = event.data['values'];
    const key = `${event.streamId}\nRunFinished`;
    if (!extension) {
      if (isJsonObject(values)) this.remember(key, { seq: -1, whole: values });
      return event;
    }
    if (!isJsonObject(values))
      throw new Error(`The final values of ${event.streamId} are not an object`);
    const runId = event.data['run_id'];
    const remembered = typeof runId === 'string' ? this.finished.ofRun(runId) : undefined;
    if (remembered) {
      this.remember(key, { seq: -1, whole: remembered.values });
      return { ...event, data: { ...event.data, values: remembered.values, values_extends: null } };
    }
    const base = await this.baseOf(event, ROOT_VALUES, extension);
    const whole = foldObjectDelta(base, { value: values, ...extension });
    this.remember(key, { seq: -1, whole });
    return { ...event, data: { ...event.data, values: whole, values_extends: null } };
  }

  /** What an event of a run's stream extends, whole: the chunk just seen, or read back. */
  private async baseOf(
    event: RecordedEvent,
    name: string,
    extension: ChunkExtension,
  ): Promise<JsonObject> {
    const known = this.known.get(`${event.streamId}\n${name}`);
    if (extension.run === undefined && known?.seq === extension.seq) return known.whole;
    return this.readBase(event.streamId, name, extension, event.streamPosition);
  }

  /** What `extension` extends, whole: folded from the chain's head (chunk n sits at position n or after). */
  private async readBase(
    stream: string,
    name: string,
    extension: ChunkExtension,
    before: number,
  ): Promise<JsonObject> {
    if (extension.run !== undefined) return this.finalValuesOf(extension.run);
    const events = await this.store.readStream(stream, {
      fromPosition: extension.head,
      maxCount: Math.max(1, before - extension.head),
    });
    let folded: Known | undefined;
    for (const event of events) {
      const { seq, event: eventName, data } = event.data;
      if (event.type !== 'RunStepEmitted' || eventName !== name || typeof seq !== 'number')
        continue;
      if (seq < extension.head || seq > extension.seq || !isJsonObject(data)) continue;
      const link = chunkExtensionOf(event.data);
      if (!link) folded = { seq, whole: data };
      else if (link.run !== undefined || folded?.seq === link.seq) {
        const base = link.run !== undefined ? await this.finalValuesOf(link.run) : folded?.whole;
        if (base) folded = { seq, whole: foldObjectDelta(base, { value: data, ...link }) };
      }
      if (folded?.seq === extension.seq) return folded.whole;
    }
    throw new Error(
      `Values chunk ${extension.seq} of ${stream}, which a later chunk extends, could not be read`,
    );
  }

  private remember(key: string, known: Known): void {
    this.known.delete(key);
    this.known.set(key, known);
    if (this.known.size <= MAX_KNOWN) return;
    const oldest = this.known.keys().next().value;
    if (oldest !== undefined) this.known.delete(oldest);
  }

  /** The values an earlier run ended with (its `RunFinished`), which it keeps for good. */
  private async finalValuesOf(runId: string): Promise<JsonObject> {
    const key = `${runStream(runId)}\nRunFinished`;
    const known = this.known.get(key)?.whole ?? this.finished.ofRun(runId)?.values;
    if (known) return known;
    const last = await this.store.readStream(runStream(runId), {
      direction: 'backwards',
      maxCount: OUTCOME_SEARCH,
    });
    const outcome = last.find((event) => event.type === 'RunFinished');
    const values = outcome && (await this.expandOutcome(outcome)).data['values'];
    if (!isJsonObject(values)) {
      throw new Error(`Run ${runId}, whose final values a later run extends, has none`);
    }
    return values;
  }
}
