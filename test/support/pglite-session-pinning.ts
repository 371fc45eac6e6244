import type { Socket } from 'node:net';

const PROTOCOL_3 = 196608;
const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;

/** One whole message of the wire protocol: its type byte, then its length, then its body. */
function takeMessages(buffer: Buffer): { messages: Buffer[]; rest: Buffer } {
  const messages: Buffer[] = [];
  let at = 0;
  while (buffer.length - at >= 5) {
    const length = buffer.readInt32BE(at + 1);
    if (buffer.length - at < 1 + length) break;
    messages.push(buffer.subarray(at, at + 1 + length));
    at += 1 + length;
  }
  return { messages, rest: buffer.subarray(at) };
}

function message(type: string, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

const cstring = (text: string): Buffer => Buffer.from(`${text}\0`, 'utf8');

function readCString(buffer: Buffer, at: number): { text: string; next: number } {
  const end = buffer.indexOf(0, at);
  return { text: buffer.toString('utf8', at, end), next: end + 1 };
}

/** `listen x` or `listen "X"`: the channel as the server names it. */
function listenedChannel(sql: string): string | undefined {
  const match = /^\s*listen\s+(?:"([^"]+)"|([^\s;]+))/i.exec(sql);
  if (!match) return undefined;
  return match[1] ?? match[2]?.toLowerCase();
}

class ClientSession {
  buffer: Buffer = Buffer.alloc(0);
  started = false;
  closed = false;
  readonly pending: Buffer[] = [];
  /** Its named prepared statements, as renamed on the shared session. */
  readonly statements = new Set<string>();
  readonly channels = new Set<string>();

  constructor(
    readonly id: number,
    readonly socket: Socket,
  ) {}

  /** Names are the client's own: on the one shared session they get the client's prefix. */
  rename(name: string): string {
    return name === '' ? '' : `c${this.id}_${name}`;
  }
}

/**
 * Lends one PostgreSQL session (PGlite has only one) to many client connections, a transaction
 * at a time: a client holds the session from its first message until the server is idle again
 * (ReadyForQuery 'I' with nothing of its pending), and the others' messages wait. Prepared
 * statement and portal names get a prefix per client; a client's notifications go to the
 * clients that ran LISTEN on their channel (UNLISTEN is not modelled: no Berth code runs it).
 * A client that leaves mid-transaction is rolled back, and its statements are deallocated.
 */
export class SessionPinning {
  private upstreamBuffer: Buffer = Buffer.alloc(0);
  private holder: ClientSession | undefined;
  private readonly queue: ClientSession[] = [];
  private readonly sessions = new Set<ClientSession>();
  /** Syncs and queries sent for the holder that no ReadyForQuery has answered yet. */
  private outstanding = 0;
  /** Extended-protocol messages sent for the holder since its last Sync. */
  private unsynced = 0;
  private status = 'I';
  private nextId = 1;

  private constructor(
    private readonly upstream: Socket,
    private readonly greeting: Buffer,
  ) {
    upstream.on('data', (chunk: Buffer) => {
      const { messages, rest } = takeMessages(Buffer.concat([this.upstreamBuffer, chunk]));
      this.upstreamBuffer = rest;
      for (const reply of messages) this.fromServer(reply);
    });
  }

  /** Opens the one session and keeps what the server greets with, for every client. */
  static async start(
    upstream: Socket,
    user: { user: string; database: string },
  ): Promise<SessionPinning> {
    const parameters = Buffer.concat([
      cstring('user'),
      cstring(user.user),
      cstring('database'),
      cstring(user.database),
      Buffer.from([0]),
    ]);
    const startup = Buffer.alloc(8);
    startup.writeInt32BE(8 + parameters.length, 0);
    startup.writeInt32BE(PROTOCOL_3, 4);
    const greeting = await new Promise<Buffer>((done, fail) => {
      let received: Buffer = Buffer.alloc(0);
      const onData = (chunk: Buffer): void => {
        received = Buffer.concat([received, chunk]);
        const { messages, rest } = takeMessages(received);
        if (rest.length > 0 || messages.at(-1)?.toString('latin1', 0, 1) !== 'Z') return;
        upstream.off('data', onData);
        const failed = messages.find((m) => m.toString('latin1', 0, 1) === 'E');
        if (failed) fail(new Error(`PGlite refused the session: ${failed.toString('utf8', 5)}`));
        else done(received);
      };
      upstream.on('data', onData);
      upstream.write(Buffer.concat([startup, parameters]));
    });
    return new SessionPinning(upstream, greeting);
  }

  accept(socket: Socket): void {
    const session = new ClientSession(this.nextId++, socket);
    this.sessions.add(session);
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => {
      session.buffer = Buffer.concat([session.buffer, chunk]);
      this.fromClient(session);
    });
    socket.on('error', () => socket.destroy());
    socket.on('close', () => {
      this.leave(session);
    });
  }

  close(): void {
    for (const session of this.sessions) session.socket.destroy();
  }

  private fromClient(session: ClientSession): void {
    while (!session.started && session.buffer.length >= 8) {
      const length = session.buffer.readInt32BE(0);
      if (session.buffer.length < length) return;
      const code = session.buffer.readInt32BE(4);
      session.buffer = session.buffer.subarray(length);
      if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
        session.socket.write('N');
      } else if (code === CANCEL_REQUEST) {
        session.socket.end();
        return;
      } else {
        session.started = true;
        session.socket.write(this.greeting);
      }
    }
    if (!session.started) return;
    const { messages, rest } = takeMessages(session.buffer);
    session.buffer = rest;
    for (const raw of messages) {
      const type = raw.toString('latin1', 0, 1);
      if (type === 'X') {
        session.socket.end();
        return;
      }
      session.pending.push(this.rewrite(session, type, raw));
    }
    if (session.pending.length === 0) return;
    if (!this.holder) {
      this.holder = session;
    } else if (this.holder !== session && !this.queue.includes(session)) {
      this.queue.push(session);
    }
    if (this.holder === session) this.forward(session);
  }

  /** Renames statements and portals to the client's own, and notes LISTENs. */
  private rewrite(session: ClientSession, type: string, raw: Buffer): Buffer {
    switch (type) {
      case 'Q': {
        const channel = listenedChannel(readCString(raw, 5).text);
        if (channel) session.channels.add(channel);
        return raw;
      }
      case 'P': {
        const name = readCString(raw, 5);
        const sql = readCString(raw, name.next);
        const channel = listenedChannel(sql.text);
        if (channel) session.channels.add(channel);
        const renamed = session.rename(name.text);
        if (renamed) session.statements.add(renamed);
        return message('P', cstring(renamed), raw.subarray(name.next));
      }
      case 'B': {
        const portal = readCString(raw, 5);
        const statement = readCString(raw, portal.next);
        return message(
          'B',
          cstring(session.rename(portal.text)),
          cstring(session.rename(statement.text)),
          raw.subarray(statement.next),
        );
      }
      case 'D':
      case 'C': {
        const kind = raw.toString('latin1', 5, 6);
        const renamed = session.rename(readCString(raw, 6).text);
        if (type === 'C' && kind === 'S') session.statements.delete(renamed);
        return message(type, Buffer.from(kind, 'latin1'), cstring(renamed));
      }
      case 'E': {
        const portal = readCString(raw, 5);
        return message('E', cstring(session.rename(portal.text)), raw.subarray(portal.next));
      }
      default:
        return raw;
    }
  }

  private forward(session: ClientSession): void {
    for (const raw of session.pending.splice(0)) this.send(raw);
  }

  private send(raw: Buffer): void {
    const type = raw.toString('latin1', 0, 1);
    if (type === 'S' || type === 'Q') {
      this.outstanding += 1;
      this.unsynced = 0;
    } else if (type !== 'H') {
      this.unsynced += 1;
    }
    this.upstream.write(raw);
  }

  private fromServer(reply: Buffer): void {
    const type = reply.toString('latin1', 0, 1);
    if (type === 'A') {
      const channel = readCString(reply, 9).text;
      for (const session of this.sessions) {
        if (session.channels.has(channel) && !session.closed) session.socket.write(reply);
      }
      return;
    }
    const holder = this.holder;
    if (holder && !holder.closed) holder.socket.write(reply);
    if (type === 'Z') {
      this.outstanding -= 1;
      this.status = reply.toString('latin1', 5, 6);
      this.settle();
    }
  }

  /** Passes the session on once its holder is idle, cleaning up after a holder that left. */
  private settle(): void {
    const holder = this.holder;
    if (!holder || this.outstanding > 0) return;
    if (holder.closed) {
      this.cleanUp(holder);
      return;
    }
    if (this.unsynced > 0 || this.status !== 'I' || holder.pending.length > 0) return;
    this.passOn();
  }

  private passOn(): void {
    this.holder = this.queue.shift();
    if (!this.holder) return;
    if (this.holder.closed) this.cleanUp(this.holder);
    else this.forward(this.holder);
  }

  private cleanUp(session: ClientSession): void {
    if (this.unsynced > 0) {
      this.send(message('S'));
      return;
    }
    const sql = [...session.statements].map((name) => `deallocate "${name}"`);
    if (this.status !== 'I') sql.unshift('rollback');
    session.statements.clear();
    if (sql.length === 0) {
      this.passOn();
      return;
    }
    this.send(message('Q', cstring(sql.join('; '))));
  }

  private leave(session: ClientSession): void {
    if (session.closed) return;
    session.closed = true;
    session.pending.length = 0;
    this.sessions.delete(session);
    const waiting = this.queue.indexOf(session);
    if (waiting >= 0) this.queue.splice(waiting, 1);
    if (this.holder === session) {
      this.settle();
    } else if (session.statements.size > 0) {
      this.queue.push(session);
      if (!this.holder) this.passOn();
    }
  }
}
