import {
  FROM_START,
  followRun,
  type Join,
  type StreamEvent,
  type StreamPhase,
} from './resumable-stream';

const events = (ids: number[]): StreamEvent[] =>
  ids.map((id) => ({ id: String(id), event: 'values', data: { id } }));

/** A run of six events whose connection drops after the given event ids, once each. */
function flakyRun(dropAfter: number[]): { join: Join; asked: string[] } {
  const asked: string[] = [];
  const all = events([0, 1, 2, 3, 4, 5]);
  const drops = new Set(dropAfter);
  const join: Join = (lastEventId) => {
    asked.push(lastEventId);
    const start = lastEventId === FROM_START ? 0 : Number(lastEventId) + 1;
    return (async function* () {
      for (const event of all.slice(start)) {
        yield await Promise.resolve(event);
        if (drops.delete(Number(event.id))) throw new TypeError('network error');
      }
    })();
  };
  return { join, asked };
}

async function follow(join: Join, from = FROM_START) {
  const seen: StreamEvent[] = [];
  const phases: StreamPhase[] = [];
  await followRun({
    join,
    from,
    signal: new AbortController().signal,
    onEvent: (event) => seen.push(event),
    onPhase: (phase) => phases.push(phase),
    wait: () => Promise.resolve(),
  });
  return { seen, phases };
}

describe('followRun', () => {
  it('resumes after each dropped connection from the last event received: none missed, none twice', async () => {
    const run = flakyRun([1, 3]);
    const { seen, phases } = await follow(run.join);
    expect(seen.map((event) => event.id)).toEqual(['0', '1', '2', '3', '4', '5']);
    expect(run.asked).toEqual([FROM_START, '1', '3']);
    expect(phases.map((phase) => phase.kind)).toEqual([
      'connecting',
      'streaming',
      'reconnecting',
      'streaming',
      'reconnecting',
      'streaming',
      'ended',
    ]);
    expect(phases[2]).toMatchObject({ kind: 'reconnecting', after: '1', attempt: 1 });
  });

  it('replays from any event', async () => {
    const run = flakyRun([]);
    const { seen } = await follow(run.join, '3');
    expect(seen.map((event) => event.id)).toEqual(['4', '5']);
    expect(run.asked).toEqual(['3']);
  });

  it('stops at a refusal (4xx) instead of retrying it', async () => {
    const refused: Join = () =>
      (async function* () {
        yield* await Promise.resolve([]);
        throw Object.assign(new Error('HTTP 404: Run not found'), { status: 404 });
      })();
    const { phases } = await follow(refused);
    expect(phases.at(-1)).toEqual({ kind: 'failed', cause: 'HTTP 404: Run not found' });
  });

  it('stops quietly when aborted', async () => {
    const stop = new AbortController();
    const phases: StreamPhase[] = [];
    const join: Join = () =>
      (async function* () {
        yield await Promise.resolve({ id: '0', event: 'values', data: {} });
        stop.abort();
        throw new TypeError('aborted');
      })();
    await followRun({
      join,
      from: FROM_START,
      signal: stop.signal,
      onEvent: () => undefined,
      onPhase: (p) => phases.push(p),
    });
    expect(phases.map((phase) => phase.kind)).toEqual(['connecting', 'streaming']);
  });
});
