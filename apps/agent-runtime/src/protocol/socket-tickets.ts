import { createHash, randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { AuthContext } from '../auth/custom-auth.js';

/** How long a ticket opens a socket for: long enough to open one, too short to be worth stealing. */
export const SOCKET_TICKET_SECONDS = 60;

/**
 * How long a browser ticket opens sockets for: the page asks for one before `useStream` opens
 * any, and a fresh one before this runs out (reconnects and new threads open sockets later).
 */
export const BROWSER_TICKET_SECONDS = 600;

/** A ticket as its caller gets it: the secret, shown once, and when it stops opening sockets. */
export interface IssuedTicket {
  readonly ticket: string;
  readonly expires_at: string;
}

const digestOf = (ticket: string): string => createHash('sha256').update(ticket).digest('hex');

/**
 * Short-lived tickets for threads' WebSockets: asked for with the key (or the application's
 * auth) over HTTPS, presented on the upgrade in place of a key a browser cannot send. A thread's
 * ticket opens that thread's socket once; a browser ticket opens the socket of any thread its
 * holder may read, until it expires. Only a digest of each is stored, in the database every
 * replica of the deployment shares.
 */
@Injectable()
export class SocketTickets {
  constructor(@Inject(DataSource) private readonly dataSource: DataSource) {}

  /** A single-use ticket for this thread's socket. */
  issue(threadId: string, who: AuthContext): Promise<IssuedTicket> {
    return this.store(threadId, who, SOCKET_TICKET_SECONDS, false);
  }

  /** A ticket for the socket of any thread `who` may read, reusable until it expires. */
  issueForBrowser(who: AuthContext): Promise<IssuedTicket> {
    return this.store(null, who, BROWSER_TICKET_SECONDS, true);
  }

  /**
   * Who the ticket was issued to, if it opens this thread's socket: unexpired, for this thread
   * (or a browser ticket), and unused (a thread's ticket is used up by this).
   */
  async redeem(ticket: string, threadId: string): Promise<AuthContext | undefined> {
    const rows: { thread_id: string | null; auth: AuthContext; valid: boolean }[] =
      await this.dataSource.query(
        `with used as (delete from socket_tickets where digest = $1 and not reusable returning *)
         select thread_id, auth, expires_at > now() as valid from used
         union all
         select thread_id, auth, expires_at > now() as valid from socket_tickets
           where digest = $1 and reusable`,
        [digestOf(ticket)],
      );
    const [row] = rows;
    return row?.valid && (row.thread_id === null || row.thread_id === threadId)
      ? row.auth
      : undefined;
  }

  private async store(
    threadId: string | null,
    who: AuthContext,
    seconds: number,
    reusable: boolean,
  ): Promise<IssuedTicket> {
    const ticket = randomBytes(32).toString('base64url');
    const expiresAt = new Date(Date.now() + seconds * 1000).toISOString();
    await this.dataSource.query(
      `with gone as (delete from socket_tickets where expires_at < now())
       insert into socket_tickets (digest, thread_id, auth, expires_at, reusable)
       values ($1, $2, $3, $4, $5)`,
      [digestOf(ticket), threadId, JSON.stringify(who), expiresAt, reusable],
    );
    return { ticket, expires_at: expiresAt };
  }
}
