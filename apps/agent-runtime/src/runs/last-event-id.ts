import { badRequest } from '#libs/domain';
import type { StreamStart } from '../run-records/run-stream-reader.js';

/** An event id as this server sends them (a chunk's number), or -1 for "from the start". */
const EVENT_ID = /^(-1|0|[1-9]\d{0,14})$/;

/** Where a resumed stream starts: after the event its `Last-Event-ID` names, or now without one. */
export function parseLastEventId(header: string | undefined): StreamStart {
  if (header === undefined || header.trim() === '') return 'now';
  const text = header.trim();
  if (!EVENT_ID.test(text)) {
    throw badRequest(
      `Last-Event-ID must be the id of an event this stream sent (a whole number) or -1, got "${text.slice(0, 40)}"`,
    );
  }
  return { afterId: Number(text) };
}
