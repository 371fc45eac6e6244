/**
 * Test support for graph-loader.spec.ts, run in a child process:
 *
 *   node --import tsx apps/agent-runtime/src/graphs/testing/loader-probe.ts <langgraph.json> <scratch dir>
 *
 * Jest 30 refuses `module.register()` inside its VM modules, so tsx's loader hooks cannot be
 * used in a test file; this script exercises GraphRegistry in a plain Node process and prints
 * what it observed as one JSON line (the last line of stdout), for the spec to check.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseGraphConfig, readGraphConfig } from '../graph-config.js';
import {
  type CompiledGraphLike,
  GraphLoadError,
  GraphRegistry,
  type LangGraphBindings,
} from '../graph-loader.js';

interface MessageLike {
  getType(): string;
  content: unknown;
  tool_calls?: { name: string; args: unknown; id?: string }[];
  tool_call_id?: string;
}

function summarizeMessage(message: MessageLike) {
  return {
    type: message.getType(),
    content: message.content,
    toolCalls: (message.tool_calls ?? []).map(({ name, args, id }) => ({ name, args, id })),
    toolCallId: message.tool_call_id,
  };
}

function nodeNames(graph: CompiledGraphLike): string[] {
  const nodes = (graph as { nodes?: Record<string, unknown> }).nodes ?? {};
  return Object.keys(nodes).filter((name) => name !== '__start__');
}

async function collect(stream: AsyncIterable<unknown>): Promise<unknown[]> {
  const chunks: unknown[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

async function errorOf(promise: Promise<unknown>): Promise<{ name: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    return error instanceof Error
      ? { name: error.name, message: error.message }
      : { name: 'non-error', message: String(error) };
  }
  return { name: 'none', message: 'no error' };
}

async function probeAgent(registry: GraphRegistry, bindings: LangGraphBindings) {
  const graph = await registry.graph('agent');
  graph.checkpointer = new bindings.MemorySaver();
  const config = { configurable: { thread_id: 'probe-agent' } };
  const chunks = await collect(
    await graph.stream(
      { messages: [{ role: 'user', content: 'What is the weather in Tokyo?' }] },
      { ...config, streamMode: ['messages', 'updates'] },
    ),
  );
  const tokens: string[] = [];
  const updates: string[] = [];
  for (const chunk of chunks) {
    const [mode, payload] = chunk as [string, unknown];
    if (mode === 'messages') {
      const [message, metadata] = payload as [MessageLike, { langgraph_node?: string }];
      if (message.getType() === 'ai' && metadata.langgraph_node === 'agent') {
        tokens.push(typeof message.content === 'string' ? message.content : '');
      }
    } else {
      updates.push(...Object.keys(payload as Record<string, unknown>));
    }
  }
  const state = (await graph.getState(config)) as { values: { messages: MessageLike[] } };
  const invoked = (await graph.invoke(
    { messages: [{ role: 'user', content: 'And in London?' }] },
    config,
  )) as { messages: MessageLike[] };
  return {
    tokens,
    updates,
    messages: state.values.messages.map(summarizeMessage),
    secondTurn: invoked.messages.slice(state.values.messages.length).map(summarizeMessage),
  };
}

async function probeInterrupt(registry: GraphRegistry, bindings: LangGraphBindings) {
  const config = { configurable: { thread_id: 'probe-interrupt', author: 'Ann' } };
  const graph = await registry.graph('interrupt', config);
  const again = await registry.graph('interrupt', config);
  graph.checkpointer = new bindings.MemorySaver();
  const first = (await graph.invoke({ topic: 'otters' }, config)) as Record<string, unknown>;
  const interrupts = (first['__interrupt__'] as { value: unknown }[] | undefined) ?? [];
  const resumed = (await graph.invoke(
    new bindings.Command({ resume: { approved: true } }),
    config,
  )) as Record<string, unknown>;
  return {
    freshGraphPerCall: graph !== again,
    interruptValues: interrupts.map((i) => i.value),
    published: resumed['published'],
  };
}

async function probeSubgraph(registry: GraphRegistry) {
  const graph = await registry.graph('subgraph');
  const chunks = await collect(
    await graph.stream({ topic: 'bees' }, { subgraphs: true, streamMode: 'updates' }),
  );
  return chunks.map((chunk) => {
    const [namespace, update] = chunk as [string[], Record<string, unknown>];
    return { namespace, nodes: Object.keys(update) };
  });
}

async function probeCustom(registry: GraphRegistry) {
  const graph = await registry.graph('custom');
  const chunks = await collect(await graph.stream({ steps: 3 }, { streamMode: ['custom'] }));
  return chunks.map((chunk) => (chunk as [string, unknown])[1]);
}

async function probeErrors(configFile: string, scratch: string) {
  await writeFile(join(scratch, 'broken.ts'), 'export const graph = ;\n');
  await writeFile(
    join(scratch, 'fake.mjs'),
    [
      'export const graph = {',
      '  invoke: async (input) => input,',
      '  stream: async () => (async function* () {})(),',
      '  getState: async () => ({}),',
      '};',
      'export const notAGraph = 42;',
      'export const throwing = () => { throw new Error("no graph today"); };',
      'export const nothing = () => undefined;',
      '',
    ].join('\n'),
  );
  const config = parseGraphConfig(
    {
      graphs: {
        missingExport: './src/agent.ts:nope',
        tool: './src/agent.ts:getWeather',
        research: { path: './src/subgraph.ts:research', description: 'the subgraph alone' },
        broken: `${join(scratch, 'broken.ts')}:graph`,
        fakeJs: `${join(scratch, 'fake.mjs')}:graph`,
        number: `${join(scratch, 'fake.mjs')}:notAGraph`,
        throwing: `${join(scratch, 'fake.mjs')}:throwing`,
        nothing: `${join(scratch, 'fake.mjs')}:nothing`,
      },
    },
    configFile,
  );
  const registry = GraphRegistry.fromConfig(config);
  try {
    const research = await registry.load('research');
    const fakeJs = await registry.load('fakeJs');
    return {
      research: { kind: research.kind, nodes: nodeNames(research.graph) },
      fakeJs: { kind: fakeJs.kind },
      missingExport: await errorOf(registry.load('missingExport')),
      tool: await errorOf(registry.load('tool')),
      broken: await errorOf(registry.load('broken')),
      number: await errorOf(registry.load('number')),
      throwing: await errorOf(registry.load('throwing')),
      nothing: await errorOf(registry.load('nothing')),
      unknownGraph: await errorOf(registry.load('unknown')),
      isGraphLoadError:
        (await registry.load('tool').catch((e: unknown) => e)) instanceof GraphLoadError,
    };
  } finally {
    await registry.close();
  }
}

async function main(): Promise<void> {
  const [configPath, scratch] = process.argv.slice(2);
  if (configPath === undefined || scratch === undefined) {
    throw new Error('usage: loader-probe.ts <langgraph.json> <scratch dir>');
  }
  const config = await readGraphConfig(configPath);
  const registry = GraphRegistry.fromConfig(config);
  try {
    const started = Date.now();
    const graphs: Record<string, { kind: string; name: unknown; nodes: string[] }> = {};
    for (const graphId of registry.graphIds()) {
      const loaded = await registry.load(graphId);
      graphs[graphId] = {
        kind: loaded.kind,
        name: loaded.graph.name,
        nodes: nodeNames(loaded.graph),
      };
    }
    const loadMs = Date.now() - started;

    const bindings = await registry.bindings('agent');
    const lg = bindings.langgraphModule;
    const compiledStateGraph = lg['CompiledStateGraph'] as abstract new () => unknown;
    const loadedGraphs = await Promise.all(registry.graphIds().map((id) => registry.graph(id)));
    // Without the registry's tsx namespace: the plain ES module instance of the same file.
    const plain = (await import(
      pathToFileURL(join(bindings.langgraphPackage.packageJson, '..', 'dist', 'index.js')).href
    )) as Record<string, unknown>;

    const identity = {
      commandIsModuleExport: bindings.Command === lg['Command'],
      graphsAreInstancesOfBindingsClasses: loadedGraphs.every(
        (g) => g instanceof compiledStateGraph,
      ),
      memorySaverIsCheckpointModules:
        bindings.MemorySaver === bindings.checkpointModule['MemorySaver'],
      memorySaverExtendsBase: new bindings.MemorySaver() instanceof bindings.BaseCheckpointSaver,
      sameBindingsForAnotherGraph: (await registry.bindings('custom')) === bindings,
      plainImportIsAnotherInstance: plain['Command'] !== bindings.Command,
      commandIsCommand: (lg['isCommand'] as (x: unknown) => boolean)(
        new bindings.Command({ resume: 1 }),
      ),
    };

    const report = {
      graphIds: registry.graphIds(),
      graphs,
      loadMs,
      packages: {
        langgraph: bindings.langgraphPackage,
        checkpoint: bindings.checkpointPackage,
      },
      identity,
      agent: await probeAgent(registry, bindings),
      interrupt: await probeInterrupt(registry, bindings),
      subgraph: await probeSubgraph(registry),
      custom: await probeCustom(registry),
      errors: await probeErrors(config.configFile, scratch),
    };
    process.stdout.write(`\n${JSON.stringify(report)}\n`);
  } finally {
    await registry.close();
  }
}

await main();
