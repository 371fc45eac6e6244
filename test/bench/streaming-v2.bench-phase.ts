import {
  interleaved,
  latencyRows,
  millis,
  percentile,
  printTable,
  type Row,
} from './bench-support.js';
import { createThread, type Target } from './bench-http.js';
import { timeClassicStream } from './classic-stream-timing.js';
import { timeProtocolSocket } from './protocol-socket-timing.js';
import { timeProtocolSse } from './protocol-sse-timing.js';
import type { RunTiming } from './run-clock.js';

type Timer = (
  target: Target,
  threadId: string,
  run: { readonly assistantId: string; readonly input: unknown },
) => Promise<RunTiming>;

interface Way {
  readonly label: string;
  readonly target: Target;
  readonly time: Timer;
}

export interface StreamingV2Options {
  readonly berth: Target;
  /** The JS server (`langgraphjs dev`, @langchain/langgraph-api), and what to call it. */
  readonly jsServer: Target;
  readonly jsServerName: string;
  readonly assistantId: string;
  readonly input: unknown;
  readonly iterations: number;
  readonly warmUp: number;
}

/** The samples of one way of streaming a run, or why there are none. */
type Samples = { readonly timings: RunTiming[] } | { readonly failure: string };

const firstEvents = (timings: readonly RunTiming[]): number[] => timings.map((t) => t.firstEventMs);
const wholeRuns = (timings: readonly RunTiming[]): number[] => timings.map((t) => t.wholeMs);

/** A way that fails its warm-up is left out of the samples (said why), unless it is Berth's. */
async function warmedUp(way: Way, options: StreamingV2Options): Promise<string | undefined> {
  try {
    for (let i = 0; i < options.warmUp; i += 1) {
      await way.time(way.target, await createThread(way.target), options);
    }
    return undefined;
  } catch (error) {
    if (way.target === options.berth) throw error;
    return error instanceof Error ? error.message : String(error);
  }
}

function comparisonRows(label: string, berth: readonly RunTiming[], peer: Samples): Row[] {
  if ('failure' in peer) {
    return [
      { metric: `${label}: not measured`, berth: '-', peer: peer.failure.slice(0, 120), ratio: '' },
    ];
  }
  return [
    ...latencyRows(
      `${label}: first values/messages event`,
      firstEvents(berth),
      firstEvents(peer.timings),
      [50, 95],
    ),
    ...latencyRows(
      `${label}: whole run (to the root completed lifecycle)`,
      wholeRuns(berth),
      wholeRuns(peer.timings),
      [50, 95],
    ),
  ];
}

function eventsOf(samples: Samples): string {
  return 'failure' in samples ? '-' : String(samples.timings.at(-1)?.events ?? 0);
}

/** p50 of `a` over p50 of `b`, as the goal line prints it. */
function p50Ratio(a: readonly number[], b: readonly number[]): number {
  return percentile(a, 50) / percentile(b, 50);
}

/**
 * A streamed run of the same graph, started five ways, its samples taken in turns: Berth's
 * classic POST runs/stream, Berth's thread streaming v2 over SSE and over a WebSocket, and the
 * JS server's v2 over SSE and over a WebSocket. Each run is on a fresh thread (made before the
 * clock starts). Prints Berth's v2 against its classic stream, then against the JS server's v2.
 */
export async function streamingV2Bench(options: StreamingV2Options): Promise<void> {
  const { berth, jsServer } = options;
  const ways = {
    classic: { label: 'berth classic POST runs/stream', target: berth, time: timeClassicStream },
    sse: { label: 'berth v2 SSE', target: berth, time: timeProtocolSse },
    socket: { label: 'berth v2 WebSocket', target: berth, time: timeProtocolSocket },
    jsSse: { label: 'JS server v2 SSE', target: jsServer, time: timeProtocolSse },
    jsSocket: { label: 'JS server v2 WebSocket', target: jsServer, time: timeProtocolSocket },
  } satisfies Record<string, Way>;
  const failures = new Map<Way, string>();
  for (const way of Object.values(ways)) {
    const failure = await warmedUp(way, options);
    if (failure !== undefined) failures.set(way, failure);
  }
  const measured = Object.values(ways).filter((way) => !failures.has(way));
  const sampled = await interleaved(
    `streaming v2 (${measured.map((way) => way.label).join(', ')})`,
    measured,
    options.iterations,
    async (way) => way.time(way.target, await createThread(way.target), options),
  );
  const samplesOf = (way: Way): Samples => {
    const failure = failures.get(way);
    return failure !== undefined ? { failure } : { timings: sampled[measured.indexOf(way)] ?? [] };
  };
  const timingsOf = (way: Way): RunTiming[] => {
    const samples = samplesOf(way);
    if ('failure' in samples) throw new Error(`${way.label}: ${samples.failure}`);
    return samples.timings;
  };
  const classic = timingsOf(ways.classic);
  const sse = timingsOf(ways.sse);
  const socket = timingsOf(ways.socket);
  const jsSse = samplesOf(ways.jsSse);
  const jsSocket = samplesOf(ways.jsSocket);
  const opened = (timings: readonly RunTiming[]): string =>
    millis(
      percentile(
        timings.map((t) => t.openMs),
        50,
      ),
    );
  const title = `a streamed run of ${options.assistantId}, ${options.iterations} runs each way, in turns, each on a fresh thread`;

  printTable(
    `Thread streaming v2 on Berth vs its classic stream: ${title}`,
    'berth classic runs/stream',
    [
      ...comparisonRows('v2 SSE', sse, { timings: classic }),
      ...comparisonRows('v2 WebSocket', socket, { timings: classic }),
      {
        metric:
          'events per run (classic: values + messages-tuple; v2: values, messages, lifecycle)',
        berth: `${eventsOf({ timings: sse })} / ${eventsOf({ timings: socket })}`,
        peer: eventsOf({ timings: classic }),
        ratio: '',
      },
      {
        metric: 'v2 SSE stream / WebSocket opened before run.start, p50 (not in the times above)',
        berth: `${opened(sse)} / ${opened(socket)}`,
        peer: '-',
        ratio: '',
      },
    ],
  );
  printTable(`Thread streaming v2, Berth vs the JS server: ${title}`, options.jsServerName, [
    ...comparisonRows('v2 SSE', sse, jsSse),
    ...comparisonRows('v2 WebSocket', socket, jsSocket),
    {
      metric: 'events per run, SSE / WebSocket',
      berth: `${eventsOf({ timings: sse })} / ${eventsOf({ timings: socket })}`,
      peer: `${eventsOf(jsSse)} / ${eventsOf(jsSocket)}`,
      ratio: '',
    },
  ]);

  const verdict = (met: boolean): string => (met ? 'met' : 'MISSED');
  const versus = (mine: readonly RunTiming[], theirs: readonly RunTiming[]): [number, number] => [
    p50Ratio(firstEvents(mine), firstEvents(theirs)),
    p50Ratio(wholeRuns(mine), wholeRuns(theirs)),
  ];
  const shown = ([first, whole]: [number, number]): string =>
    `first event ${first.toFixed(2)}, whole run ${whole.toFixed(2)}`;
  const classicRatios = [versus(sse, classic), versus(socket, classic)];
  const jsRatios: [string, [number, number] | undefined][] = [
    ['SSE', 'failure' in jsSse ? undefined : versus(sse, jsSse.timings)],
    ['WebSocket', 'failure' in jsSocket ? undefined : versus(socket, jsSocket.timings)],
  ];
  const jsCompared = jsRatios.filter(
    (entry): entry is [string, [number, number]] => entry[1] !== undefined,
  );
  console.log(
    "\nRatio columns: the peer over Berth's v2 (above 1 means Berth's v2 is faster); below, p50 over p50 the other way round." +
      `\nGoal: v2 no slower than Berth's classic stream (v2/classic p50 at most 1.00): ` +
      `SSE ${shown(classicRatios[0] as [number, number])}; WebSocket ${shown(classicRatios[1] as [number, number])}: ` +
      verdict(classicRatios.every(([first, whole]) => first <= 1 && whole <= 1)) +
      `\nGoal: v2 faster than the JS server's (Berth v2/JS server v2 p50 below 1.00): ` +
      jsRatios
        .map(([label, ratios]) => `${label} ${ratios ? shown(ratios) : 'not measured'}`)
        .join('; ') +
      `: ${jsCompared.length === 0 ? 'NOT MEASURED' : verdict(jsCompared.every(([, [first, whole]]) => first < 1 && whole < 1))}` +
      '\nNotes: v2 times start at sending run.start on a stream or socket already open (its ' +
      'opening is shown apart; on the socket, subscription.subscribe goes just before ' +
      'run.start); the classic time starts at sending the POST. The JS server keeps ' +
      'its runs and events in memory; Berth writes every event to PostgreSQL before streaming it.',
  );
  for (const [way, failure] of failures) console.log(`${way.label}: not measured: ${failure}`);
}
