import type { JsonObject } from '#libs/event-store';
import { foldObjectDelta, objectDelta } from '../common/json-delta.js';
import { isJsonObject } from '../common/json-object.js';

/**
 * How a checkpoint saved as what changed relates to the checkpoint it extends (its base, saved
 * before it in the same namespace): its `channel_values` are an `ObjectDelta` of the base's with
 * these `prefixes` and `unchanged` channels. Every other field is stored whole.
 */
export type CheckpointExtension = {
  checkpoint_id: string;
  prefixes: Record<string, number>;
  unchanged: string[];
};

/** A checkpoint's JSON stored as what changed since its base. */
export type CheckpointDelta = { value: JsonObject; extends: CheckpointExtension };

/** The checkpoint `next` (as JSON) stored against `base`; undefined when no channel refers to it. */
export function checkpointDelta(
  baseId: string,
  base: JsonObject,
  next: JsonObject,
): CheckpointDelta | undefined {
  const baseValues = base['channel_values'];
  const nextValues = next['channel_values'];
  if (!isJsonObject(baseValues) || !isJsonObject(nextValues)) return undefined;
  const delta = objectDelta(baseValues, nextValues);
  if (!delta) return undefined;
  return {
    value: { ...next, channel_values: delta.value },
    extends: { checkpoint_id: baseId, prefixes: delta.prefixes, unchanged: delta.unchanged },
  };
}

/** The whole checkpoint a delta stands for, given its base's whole JSON. */
export function foldCheckpointDelta(
  base: JsonObject,
  value: JsonObject,
  extension: CheckpointExtension,
): JsonObject {
  const baseValues = base['channel_values'];
  const storedValues = value['channel_values'];
  if (!isJsonObject(baseValues) || !isJsonObject(storedValues)) {
    throw new Error('a checkpoint delta or its base has no channel_values');
  }
  const channelValues = foldObjectDelta(baseValues, {
    value: storedValues,
    prefixes: extension.prefixes,
    unchanged: extension.unchanged,
  });
  return { ...value, channel_values: channelValues };
}
