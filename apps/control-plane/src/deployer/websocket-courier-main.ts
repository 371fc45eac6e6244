/**
 * The process that holds every WebSocket the control plane lets through to a runtime, so that
 * their descriptors (the client's and the runtime's, two per WebSocket) are this process's, not
 * the control plane's, and their bytes cross this event loop. The control plane hands each
 * accepted client socket over on the IPC channel (websocket-courier.ts) and closes its own copy;
 * this process joins it to the runtime (websocket-joins.ts). Ends with its parent.
 */
import type { Socket } from 'node:net';
import type { RuntimeEndpoint } from './runtime-forwarding.js';
import { WebSocketJoins } from './websocket-joins.js';

export type CourierRequest =
  | {
      readonly kind: 'join';
      readonly key: string;
      readonly endpoint: RuntimeEndpoint;
      /** `UpgradeToJoin.opening`, base64. */
      readonly opening: string;
    }
  | { readonly kind: 'close'; readonly key: string };

export type CourierReply = { readonly kind: 'closed'; readonly key: string };

const joins = new WebSocketJoins((key) => {
  if (process.connected) process.send?.({ kind: 'closed', key } satisfies CourierReply);
});

process.on('message', (request: CourierRequest, client: Socket | undefined) => {
  if (request.kind === 'close') {
    joins.closeAll(request.key);
    return;
  }
  if (!client) {
    process.send?.({ kind: 'closed', key: request.key } satisfies CourierReply);
    return;
  }
  const { key, endpoint } = request;
  joins.join({ key, endpoint, opening: Buffer.from(request.opening, 'base64') }, client);
});
// The control plane is gone (or let go of it): every WebSocket goes too.
process.on('disconnect', () => process.exit(0));
