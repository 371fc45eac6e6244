import type { JsonObject, JsonValue } from '#libs/event-store';

/** The channels of thread streaming v2 (`@langchain/protocol`), `custom:<name>` aside. */
export const PROTOCOL_CHANNELS = [
  'values',
  'updates',
  'messages',
  'tools',
  'lifecycle',
  'input',
  'checkpoints',
  'tasks',
  'custom',
] as const;

/** A channel name of a stream request or subscription: one of the above, or `custom:<name>`. */
export const PROTOCOL_CHANNEL =
  /^(values|updates|messages|tools|lifecycle|input|checkpoints|tasks|custom(:.+)?)$/;

/** What one protocol event says, before the thread's stream gives it its place (`seq`). */
export interface ProtocolEventBody {
  readonly method: string;
  readonly namespace: readonly string[];
  readonly node?: string;
  readonly data: JsonValue;
  /** When the log recorded what the event comes from, in milliseconds. */
  readonly timestamp: number;
}

/** A protocol event as it goes on the wire: its `seq` and `event_id` come from the log. */
export interface ProtocolEvent {
  readonly type: 'event';
  readonly event_id: string;
  readonly seq: number;
  readonly method: string;
  readonly params: {
    readonly namespace: readonly string[];
    readonly timestamp: number;
    readonly node?: string;
    readonly data: JsonValue;
  };
}

export type ProtocolErrorCode =
  | 'invalid_argument'
  | 'unknown_command'
  | 'unknown_error'
  | 'no_such_run'
  | 'no_such_subscription'
  | 'no_such_namespace'
  | 'no_such_interrupt'
  | 'no_such_checkpoint'
  | 'permission_denied'
  | 'not_supported';

export interface ProtocolCommand {
  readonly id: number;
  readonly method: string;
  readonly params: JsonObject;
}

export type ProtocolResponse =
  | {
      readonly type: 'success';
      readonly id: number;
      readonly result: JsonObject;
      readonly meta?: JsonObject;
    }
  | {
      readonly type: 'error';
      readonly id: number | null;
      readonly error: ProtocolErrorCode;
      readonly message: string;
    };

/** A command's failure, answered as the protocol's error object. */
export class ProtocolError extends Error {
  constructor(
    readonly code: ProtocolErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export function protocolSuccess(id: number, result: JsonObject): ProtocolResponse {
  return { type: 'success', id, result };
}

export function protocolFailure(
  id: number | null,
  code: ProtocolErrorCode,
  message: string,
): ProtocolResponse {
  return { type: 'error', id, error: code, message };
}
