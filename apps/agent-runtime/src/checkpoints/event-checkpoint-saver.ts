import * as installedCheckpointLibrary from '@langchain/langgraph-checkpoint';
import type { EventStore } from '#libs/event-store';
import {
  createEventCheckpointSaver,
  eventCheckpointSaverClass,
  type EventCheckpointSaver as EventCheckpointSaverInstance,
  type EventCheckpointSaverClass,
  type EventCheckpointSaverOptions,
} from './create-event-checkpoint-saver.js';

/**
 * The event-sourced checkpointer on Berth's own copy of @langchain/langgraph-checkpoint. A graph
 * loaded from a deployed application needs `createEventCheckpointSaver` with that application's
 * copy instead.
 */
export const EventCheckpointSaver: EventCheckpointSaverClass = eventCheckpointSaverClass(
  installedCheckpointLibrary,
);
export type EventCheckpointSaver = EventCheckpointSaverInstance;

/** `new EventCheckpointSaver(store, options)`: on Berth's own copy of the checkpoint library. */
export function createInstalledEventCheckpointSaver(
  store: EventStore,
  options?: EventCheckpointSaverOptions,
): EventCheckpointSaver {
  return createEventCheckpointSaver(installedCheckpointLibrary, store, options);
}
