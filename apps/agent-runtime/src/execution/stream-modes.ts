/** The stream modes a run may ask for. */
export const STREAM_MODES = [
  'values',
  'updates',
  'messages',
  'messages-tuple',
  'debug',
  'custom',
  'events',
  'tasks',
  'checkpoints',
  'tools',
] as const;

export type StreamMode = (typeof STREAM_MODES)[number];
