import type { Migration } from '#libs/event-store';

/**
 * Tickets that open a thread's WebSocket from a browser, which cannot send the key on one: a
 * digest of each, the thread, who asked for it and until when. Redeeming deletes the row, so a
 * ticket opens one socket, on whichever replica the browser reaches. A browser ticket
 * (`reusable`, no thread) opens any thread's socket until it expires: the SDK's socket factory
 * is synchronous and cannot ask for a ticket per socket. Each deployment has its own database,
 * so a ticket opens nothing on another.
 */
export const SOCKET_TICKET_MIGRATIONS: Migration[] = [
  {
    version: 2601,
    name: 'WebSocket tickets',
    sql: `create table socket_tickets (
            digest text primary key,
            thread_id uuid not null,
            auth jsonb not null,
            expires_at timestamptz not null
          );
          create index socket_tickets_expiry on socket_tickets (expires_at);`,
  },
  {
    version: 2602,
    name: 'Browser WebSocket tickets',
    sql: `alter table socket_tickets
            alter column thread_id drop not null,
            add column reusable boolean not null default false;`,
  },
];
