import { Injectable } from '@nestjs/common';

/** A cluster listener is connected while its polls come at most this far apart. */
export const CONNECTED_WITHIN_MS = 90_000;

/**
 * When each cluster listener last asked for its assignments. Kept in this process only: after a
 * restart of the control plane a listener shows disconnected until its next poll.
 */
@Injectable()
export class ListenerPresence {
  private readonly lastSeen = new Map<string, Date>();

  seen(listenerId: string, at = new Date()): void {
    this.lastSeen.set(listenerId, at);
  }

  of(listenerId: string, now = Date.now()): { connected: boolean; last_seen_at: string | null } {
    const seen = this.lastSeen.get(listenerId);
    return {
      connected: seen !== undefined && now - seen.getTime() <= CONNECTED_WITHIN_MS,
      last_seen_at: seen?.toISOString() ?? null,
    };
  }
}
