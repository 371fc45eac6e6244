import { beforeAll, describe, expect, it } from '@jest/globals';
import { dirname, join } from 'node:path';
import { INSTALL_TIMEOUT_MS, installOfficialCli } from '../../support/official-cli.js';
import {
  STREAM_MODES,
  type GraphCommand,
  type StreamMode,
} from '../../../apps/agent-runtime/src/execution/graph-stream.js';
import {
  HUMAN_HI,
  RUN_ID,
  collect,
  deepGraph,
  echoGraph,
  fanOutGraph,
  interruptGraph,
  runConfig,
  runRequest,
  serverConfig,
} from '../../../apps/agent-runtime/src/execution/testing/graph-stream-fixtures.js';

/**
 * The reference server's `streamState` (of `@langchain/langgraph-api`, which the official CLI
 * depends on), from the CLI installed into the cache on first use: not a dependency of Berth.
 */
let referenceDist = '';

beforeAll(async () => {
  const cli = await installOfficialCli();
  // <cache>/node_modules/@langchain/langgraph-cli/dist/cli/cli.mjs -> <cache>/node_modules
  const modules = dirname(dirname(dirname(dirname(dirname(cli)))));
  referenceDist = join(modules, '@langchain', 'langgraph-api', 'dist');
}, INSTALL_TIMEOUT_MS);

interface ReferenceStream {
  readonly streamState: (
    run: unknown,
    options: unknown,
  ) => AsyncIterable<{ readonly event: string; readonly data: unknown }>;
}
interface ReferenceSerde {
  readonly serialiseAsDict: (value: unknown) => string;
}

describe('streamGraphRun against the reference streamState', () => {
  // `tools` (thread streaming v2's tool events) is newer than the reference's streamState.
  const ALL_MODES: readonly StreamMode[] = STREAM_MODES.filter((mode) => mode !== 'tools');

  /** Masks ids and timestamps consistently (first seen id is <0>, ...) and drops graph_node. */
  function normalize(lines: readonly string[]): string[] {
    const ids = new Map<string, string>();
    return lines.map((line) =>
      line
        .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z/g, '<ts>')
        .replace(
          /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{32}/g,
          (id) => {
            if (!ids.has(id)) ids.set(id, `<${ids.size}>`);
            return ids.get(id) ?? id;
          },
        )
        .replace(/,"graph_node":"[^"]*"/g, ''),
    );
  }

  async function referenceLines(
    graph: unknown,
    modes: readonly StreamMode[],
    subgraphs: boolean,
    input: unknown,
    command?: GraphCommand,
  ): Promise<string[]> {
    const { streamState } = (await import(join(referenceDist, 'stream.mjs'))) as ReferenceStream;
    const { serialiseAsDict } = (await import(
      join(referenceDist, 'utils', 'serde.mjs')
    )) as ReferenceSerde;
    const run = {
      run_id: RUN_ID,
      kwargs: { input, command, stream_mode: modes, subgraphs, config: runConfig('g') },
    };
    const lines: string[] = [];
    const options = {
      getGraph: () => Promise.resolve(graph),
      attempt: 1,
      signal: new AbortController().signal,
    };
    for await (const { event, data } of streamState(run, options)) {
      if (event !== 'metadata') lines.push(`${event} ${serialiseAsDict(data)}`);
    }
    return lines;
  }

  async function ourLines(
    graph: unknown,
    modes: readonly StreamMode[],
    subgraphs: boolean,
    input: unknown,
    command?: GraphCommand,
  ): Promise<string[]> {
    // The reference fills langgraph_api_url from LANGGRAPH_API_URL.
    const config = serverConfig('g', process.env['LANGGRAPH_API_URL'] ?? null);
    const events = await collect(runRequest(graph, modes, { subgraphs, input, command, config }));
    return events.map(({ event, data }) => `${event} ${JSON.stringify(data)}`);
  }

  const graphs: [string, () => unknown, unknown, GraphCommand?][] = [
    ['a chat model', echoGraph, HUMAN_HI],
    ['parallel nodes', fanOutGraph, { items: [] }],
    ['nested subgraphs', deepGraph, HUMAN_HI],
    ['an interrupt and resume', interruptGraph, HUMAN_HI, { resume: 'Ada' }],
  ];
  const modeSets = [...ALL_MODES.map((mode) => [mode]), ALL_MODES];

  describe.each(graphs)('for %s', (_name, makeGraph, input, resume) => {
    it.each([false, true])('produces the same events with subgraphs=%s', async (subgraphs) => {
      for (const modes of modeSets) {
        const reference = makeGraph();
        const ours = makeGraph();
        let expected = await referenceLines(reference, modes, subgraphs, input);
        let actual = await ourLines(ours, modes, subgraphs, input);
        if (resume !== undefined) {
          expected = expected.concat(
            await referenceLines(reference, modes, subgraphs, null, resume),
          );
          actual = actual.concat(await ourLines(ours, modes, subgraphs, null, resume));
        }
        expect({ modes, lines: normalize(actual) }).toEqual({ modes, lines: normalize(expected) });
      }
    });
  });
});
