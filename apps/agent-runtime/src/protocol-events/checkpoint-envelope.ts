import type { JsonObject, RecordedEvent } from '#libs/event-store';
import { CHECKPOINT_SAVED } from '../checkpoints/checkpoint-events.js';
import { isJsonObject } from '../common/json-object.js';

/**
 * The `checkpoints` channel's envelope (id, parent, step, source) of a checkpoint saved in the
 * thread's checkpoint stream, whoever wrote it: a run, a state update, a fork.
 */
export function checkpointEnvelopeOf(
  event: RecordedEvent,
): { namespace: string[]; data: JsonObject } | undefined {
  if (event.type !== CHECKPOINT_SAVED) return undefined;
  const { checkpoint_id: id, checkpoint_ns: ns, parent_checkpoint_id: parent } = event.data;
  if (typeof id !== 'string') return undefined;
  const stored = event.data.metadata;
  const metadata = isJsonObject(stored) && isJsonObject(stored.value) ? stored.value : {};
  const namespace = typeof ns === 'string' && ns !== '' ? ns.split('|') : [];
  return {
    namespace,
    data: {
      id,
      ...(typeof parent === 'string' ? { parent_id: parent } : {}),
      step: typeof metadata.step === 'number' ? metadata.step : -1,
      source: typeof metadata.source === 'string' ? metadata.source : 'loop',
    },
  };
}
