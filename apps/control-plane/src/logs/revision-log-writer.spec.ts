import { describe, expect, it } from '@jest/globals';
import type { EventStore, EventToAppend } from '#libs/event-store';
import { REVISION_LOG_EVENT, revisionLogStream, type LogLine } from './revision-log.js';
import { HostDetails } from './host-details.js';
import { RevisionLogWriter } from './revision-log-writer.js';

type AppendCall = { streamId: string; events: readonly EventToAppend[] };

/** Records appends; each append waits for the test to settle it (or settles at once). */
class RecordingStore {
  readonly calls: AppendCall[] = [];
  private readonly waiting: ((call: AppendCall) => void)[] = [];
  private readonly settlers: { resolve: () => void; reject: (error: unknown) => void }[] = [];

  constructor(private readonly settleAtOnce: boolean) {}

  append(streamId: string, events: readonly EventToAppend[]): Promise<unknown> {
    const call = { streamId, events };
    this.calls.push(call);
    for (const notify of this.waiting.splice(0)) notify(call);
    if (this.settleAtOnce) return Promise.resolve({ streamPosition: 0 });
    return new Promise<void>((resolve, reject) => this.settlers.push({ resolve, reject }));
  }

  /** The next append, or the one already recorded at that index. */
  nextCall(index: number): Promise<AppendCall> {
    const recorded = this.calls[index];
    if (recorded) return Promise.resolve(recorded);
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  settle(index: number, error?: unknown): void {
    const settler = this.settlers[index];
    if (!settler) throw new Error(`no append ${index} to settle`);
    if (error === undefined) settler.resolve();
    else settler.reject(error);
  }

  asEventStore(): EventStore {
    return this as unknown as EventStore;
  }
}

const linesOf = (call: AppendCall): LogLine[] => {
  expect(call.events).toHaveLength(1);
  const event = call.events[0];
  expect(event?.type).toBe(REVISION_LOG_EVENT);
  return (event?.data as { lines: LogLine[] }).lines;
};

const messagesOf = (call: AppendCall): string[] => linesOf(call).map((line) => line.message);

const REVISION = 'rev-1';
const noError = (error: unknown): void => {
  throw error;
};

describe('RevisionLogWriter', () => {
  it('appends the lines written within the flush window in one append, in order', async () => {
    const store = new RecordingStore(true);
    const writer = new RevisionLogWriter(store.asEventStore(), REVISION, {
      secretValues: [],
      onError: noError,
    });

    writer.write('build', 'one');
    writer.write('build', 'two');
    writer.write('deploy', 'three');
    const call = await store.nextCall(0);

    expect(store.calls).toHaveLength(1);
    expect(call.streamId).toBe(revisionLogStream(REVISION));
    const lines = linesOf(call);
    expect(lines.map(({ type, message }) => ({ type, message }))).toEqual([
      { type: 'build', message: 'one' },
      { type: 'build', message: 'two' },
      { type: 'deploy', message: 'three' },
    ]);
    for (const line of lines) expect(new Date(line.timestamp).toISOString()).toBe(line.timestamp);
  });

  it('splits multi-line messages, drops blank lines and removes carriage returns', async () => {
    const store = new RecordingStore(true);
    const writer = new RevisionLogWriter(store.asEventStore(), REVISION, {
      secretValues: [],
      onError: noError,
    });

    writer.write('build', 'first\r\nsecond\n\n   \nthird\r\n');
    writer.write('build', '\n');
    writer.write('build', 'progress\r50%');
    await writer.flush();

    expect(store.calls).toHaveLength(1);
    expect(messagesOf(store.calls[0] as AppendCall)).toEqual([
      'first',
      'second',
      'third',
      'progress50%',
    ]);
  });

  it('masks secret values of four or more characters, the longest first', async () => {
    const store = new RecordingStore(true);
    const writer = new RevisionLogWriter(store.asEventStore(), REVISION, {
      secretValues: ['secret', 'abc', 'supersecret'],
      onError: noError,
    });

    writer.write('build', 'token=supersecret and secret, short abc');
    writer.write('deploy', 'secretsecret');
    await writer.flush();

    expect(messagesOf(store.calls[0] as AppendCall)).toEqual([
      'token=******** and ********, short abc',
      '****************',
    ]);
  });

  it('cuts lines that are too long', async () => {
    const store = new RecordingStore(true);
    const writer = new RevisionLogWriter(store.asEventStore(), REVISION, {
      secretValues: [],
      onError: noError,
    });

    writer.write('build', 'x'.repeat(10_000));
    writer.write('build', 'y'.repeat(8192));
    await writer.flush();

    const [long, limit] = messagesOf(store.calls[0] as AppendCall);
    expect(long).toBe(`${'x'.repeat(8192)}…`);
    expect(limit).toBe('y'.repeat(8192));
  });

  it('resolves flush only once the append is stored', async () => {
    const store = new RecordingStore(false);
    const writer = new RevisionLogWriter(store.asEventStore(), REVISION, {
      secretValues: [],
      onError: noError,
    });
    let flushed = false;

    writer.write('build', 'line');
    const flushing = writer.flush().then(() => (flushed = true));
    await store.nextCall(0);
    await new Promise((resolve) => setImmediate(resolve));
    expect(flushed).toBe(false);

    store.settle(0);
    await flushing;
    expect(flushed).toBe(true);
  });

  it('does not append when nothing is pending', async () => {
    const store = new RecordingStore(true);
    const writer = new RevisionLogWriter(store.asEventStore(), REVISION, {
      secretValues: [],
      onError: noError,
    });

    writer.write('build', '\n  \n');
    await writer.flush();

    expect(store.calls).toHaveLength(0);
  });

  it('hides host paths and internal addresses, and redacts status messages alike', async () => {
    const store = new RecordingStore(true);
    const writer = new RevisionLogWriter(store.asEventStore(), REVISION, {
      secretValues: ['hunter2-token'],
      hostDetails: new HostDetails('/data/builds/r/source', ['/data']),
      onError: noError,
    });
    writer.write(
      'deploy',
      'runtime for /data/builds/r/source/langgraph.json on http://127.0.0.1:4242',
    );
    await writer.flush();
    expect(messagesOf(store.calls[0] as AppendCall)).toEqual([
      'runtime for langgraph.json on [internal address]',
    ]);
    expect(writer.redact('failed in /data/builds/x with hunter2-token')).toBe(
      'failed in [platform] with ********',
    );
  });

  it('reports a failed append and still appends what is written later', async () => {
    const store = new RecordingStore(false);
    const errors: unknown[] = [];
    const writer = new RevisionLogWriter(store.asEventStore(), REVISION, {
      secretValues: [],
      onError: (error) => errors.push(error),
    });
    const failure = new Error('store unavailable');

    writer.write('build', 'lost');
    const first = writer.flush();
    await store.nextCall(0);
    store.settle(0, failure);
    await first;
    expect(errors).toEqual([failure]);

    writer.write('build', 'kept');
    const second = writer.flush();
    const call = await store.nextCall(1);
    store.settle(1);
    await second;

    expect(messagesOf(call)).toEqual(['kept']);
    expect(errors).toEqual([failure]);
  });
});
