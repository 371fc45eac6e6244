import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { isCompiledGraphLike } from './graph-loader.js';

const run = promisify(execFile);

interface MessageSummary {
  type: string;
  content: unknown;
  toolCalls: { name: string; args: unknown; id?: string }[];
  toolCallId?: string;
}

interface ErrorSummary {
  name: string;
  message: string;
}

/** What testing/loader-probe.ts prints. */
interface ProbeReport {
  graphIds: string[];
  graphs: Record<string, { kind: string; name: string; nodes: string[] }>;
  packages: Record<
    'langgraph' | 'checkpoint',
    { name: string; version: string; packageJson: string }
  >;
  identity: Record<string, boolean>;
  agent: {
    tokens: string[];
    updates: string[];
    messages: MessageSummary[];
    secondTurn: MessageSummary[];
  };
  interrupt: { freshGraphPerCall: boolean; interruptValues: unknown[]; published: string };
  subgraph: { namespace: string[]; nodes: string[] }[];
  custom: unknown[];
  errors: Record<string, ErrorSummary> & {
    research: { kind: string; nodes: string[] };
    fakeJs: { kind: string };
    isGraphLoadError: boolean;
  };
}

describe('isCompiledGraphLike', () => {
  it('checks for invoke, stream and getState', () => {
    const fn = (): Promise<void> => Promise.resolve();
    expect(isCompiledGraphLike({ invoke: fn, stream: fn, getState: fn })).toBe(true);
    expect(isCompiledGraphLike({ invoke: fn, stream: fn })).toBe(false);
    expect(isCompiledGraphLike(null)).toBe(false);
    expect(isCompiledGraphLike(fn)).toBe(false);
  });
});

/*
 * GraphRegistry imports the application's TypeScript through tsx's loader hooks
 * (module.register), which Jest 30 refuses inside its VM modules. So the registry runs in a
 * plain Node child process (testing/loader-probe.ts) and these tests check its report.
 */
describe('GraphRegistry (in a child process, on examples/agent)', () => {
  let scratch: string;
  let report: ProbeReport;

  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'berth-graph-loader-'));
    const { stdout } = await run(
      process.execPath,
      [
        '--import',
        'tsx',
        resolve('apps/agent-runtime/src/graphs/testing/loader-probe.ts'),
        resolve('examples/agent/langgraph.json'),
        scratch,
      ],
      { cwd: resolve('.'), timeout: 120_000, maxBuffer: 16 * 1024 * 1024 },
    );
    const lastLine = stdout.trimEnd().split('\n').at(-1) ?? '';
    report = JSON.parse(lastLine) as ProbeReport;
  }, 150_000);

  afterAll(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  it('loads every example graph from TypeScript, with no build step', () => {
    expect(report.graphIds).toEqual(['agent', 'subgraph', 'interrupt', 'custom']);
    expect(report.graphs).toEqual({
      agent: { kind: 'graph', name: 'agent', nodes: ['agent', 'tools'] },
      subgraph: { kind: 'graph', name: 'subgraph', nodes: ['plan', 'research', 'report'] },
      interrupt: { kind: 'factory', name: 'interrupt', nodes: ['write', 'review', 'publish'] },
      custom: { kind: 'graph', name: 'custom', nodes: ['count', 'finish'] },
    });
  });

  it("resolves the application's own @langchain/langgraph and its checkpoint package", () => {
    const nodeModules = resolve('node_modules/@langchain');
    expect(report.packages.langgraph).toEqual({
      name: '@langchain/langgraph',
      version: expect.stringMatching(/^1\./) as unknown as string,
      packageJson: join(nodeModules, 'langgraph', 'package.json'),
    });
    expect(report.packages.checkpoint).toEqual({
      name: '@langchain/langgraph-checkpoint',
      version: expect.stringMatching(/^1\./) as unknown as string,
      packageJson: join(nodeModules, 'langgraph-checkpoint', 'package.json'),
    });
  });

  it('gives bindings from the same module instances as the loaded graphs', () => {
    expect(report.identity).toEqual({
      commandIsModuleExport: true,
      // Every loaded graph is an instance of the bindings' CompiledStateGraph: the graph
      // modules and the bindings share one @langchain/langgraph, so one Command class.
      graphsAreInstancesOfBindingsClasses: true,
      memorySaverIsCheckpointModules: true,
      memorySaverExtendsBase: true,
      sameBindingsForAnotherGraph: true,
      // A plain import() of the same file is another instance: the registry's tsx namespace
      // keeps the application's modules apart from the host's.
      plainImportIsAnotherInstance: true,
      commandIsCommand: true,
    });
  });

  it('runs the agent end to end: one tool call, the tool result, then a streamed answer', () => {
    const { messages, tokens, updates } = report.agent;
    const answer =
      'Here is what I found: It is 24°C and sunny in Tokyo. (answered by fake-tool-caller)';
    expect(messages).toEqual([
      { type: 'human', content: 'What is the weather in Tokyo?', toolCalls: [] },
      {
        type: 'ai',
        content: '',
        toolCalls: [{ name: 'get_weather', args: { city: 'Tokyo' }, id: 'call_get_weather_1' }],
      },
      {
        type: 'tool',
        content: 'It is 24°C and sunny in Tokyo.',
        toolCalls: [],
        toolCallId: 'call_get_weather_1',
      },
      { type: 'ai', content: answer, toolCalls: [] },
    ]);
    expect(updates).toEqual(['agent', 'tools', 'agent']);
    // The first AI chunk carries the tool call (no text); the answer comes word by word.
    expect(tokens[0]).toBe('');
    expect(tokens.length).toBeGreaterThan(10);
    expect(tokens.join('')).toBe(answer);
  });

  it('keeps the conversation on the thread (MemorySaver from the bindings)', () => {
    expect(report.agent.secondTurn.map((m) => [m.type, m.toolCalls[0]?.args ?? m.content])).toEqual(
      [
        ['human', 'And in London?'],
        ['ai', { city: 'London' }],
        ['tool', 'It is 14°C and rainy in London.'],
        [
          'ai',
          'Here is what I found: It is 14°C and rainy in London. (answered by fake-tool-caller)',
        ],
      ],
    );
  });

  it('calls a function export with the config, and resumes its interrupt with the bindings Command', () => {
    expect(report.interrupt).toEqual({
      freshGraphPerCall: true,
      interruptValues: [
        { question: 'Do you approve this draft?', draft: 'A short note about otters, by Ann.' },
      ],
      published: 'Published: A short note about otters, by Ann.',
    });
  });

  it('streams namespaced subgraph updates and custom events', () => {
    const namespaces = report.subgraph.map((u) => [
      u.namespace.map((ns) => ns.split(':')[0]),
      u.nodes,
    ]);
    expect(namespaces).toEqual([
      [[], ['plan']],
      [['research'], ['search']],
      [['research'], ['summarize']],
      [[], ['research']],
      [[], ['report']],
    ]);
    expect(report.custom).toEqual([
      { kind: 'progress', node: 'count', step: 1, of: 3 },
      { kind: 'progress', node: 'count', step: 2, of: 3 },
      { kind: 'progress', node: 'count', step: 3, of: 3 },
      { kind: 'done', node: 'finish', step: 3, of: 3 },
    ]);
  });

  it('loads other exports and JavaScript modules, and names what is wrong with bad ones', () => {
    const { errors } = report;
    const agentFile = resolve('examples/agent/src/agent.ts');
    expect(errors.research).toEqual({ kind: 'graph', nodes: ['search', 'summarize'] });
    expect(errors.fakeJs).toEqual({ kind: 'graph' });
    expect(errors.isGraphLoadError).toBe(true);
    expect(errors['missingExport']).toEqual({
      name: 'GraphLoadError',
      message: `graph "missingExport": ${agentFile} has no export "nope" (exports: getWeather, graph)`,
    });
    expect(errors['tool']?.message).toBe(
      'graph "tool": export "getWeather" is an instance of DynamicStructuredTool, not a compiled graph (with invoke, stream and getState)',
    );
    expect(errors['broken']?.message).toMatch(
      /^graph "broken": cannot import .*broken\.ts: Transform failed/,
    );
    expect(errors['number']?.message).toBe(
      'graph "number": export "notAGraph" is number, not a compiled graph (with invoke, stream and getState)',
    );
    expect(errors['throwing']?.message).toBe(
      'graph "throwing": graph function "throwing" threw: no graph today',
    );
    expect(errors['nothing']?.message).toBe(
      'graph "nothing": function "nothing" returned undefined, not a compiled graph (with invoke, stream and getState)',
    );
    expect(errors['unknownGraph']?.message).toMatch(/^graph "unknown": not in .*langgraph\.json/);
  });
});
