import { createHash, randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { AuthContext } from '../auth/custom-auth.js';

/** How long a ticket opens a socket for: long enough to open one, too short to be worth stealing. */
export const SOCKET_TICKET_SECONDS = 60;

const digestOf = (ticket: string): string => createHash('sha256').update(ticket).digest('hex');

/**
 * Single-use, short-lived tickets for a thread's WebSocket: asked for with the key (or the
 * application's auth) over HTTPS, presented on the upgrade in place of a key a browser cannot
 * send. Only a digest of each is stored, in the database every replica shares.
 */
@Injectable()
export class SocketTickets {
  constructor(@Inject(DataSource) private readonly dataSource: DataSource) {}

  async issue(threadId: string, who: AuthContext): Promise<{ ticket: string; expires_at: string }> {
    const ticket = randomBytes(32).toString('base64url');
    const expiresAt = new Date(Date.now() + SOCKET_TICKET_SECONDS * 1000).toISOString();
    await this.dataSource.query(
      `with gone as (delete from socket_tickets where expires_at < now())
       insert into socket_tickets (digest, thread_id, auth, expires_at) values ($1, $2, $3, $4)`,
      [digestOf(ticket), threadId, JSON.stringify(who), expiresAt],
    );
    return { ticket, expires_at: expiresAt };
  }

  /** Who the ticket was issued to, if it is one for this thread, unused and not expired. */
  async redeem(ticket: string, threadId: string): Promise<AuthContext | undefined> {
    const rows: { thread_id: string; auth: AuthContext; valid: boolean }[] =
      await this.dataSource.query(
        `with used as (delete from socket_tickets where digest = $1 returning *)
       select thread_id, auth, expires_at > now() as valid from used`,
        [digestOf(ticket)],
      );
    const [row] = rows;
    return row?.valid && row.thread_id === threadId ? row.auth : undefined;
  }
}
