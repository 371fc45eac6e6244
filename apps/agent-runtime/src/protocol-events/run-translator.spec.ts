import { describe, expect, it } from '@jest/globals';
import type { JsonObject, RecordedEvent } from '#libs/event-store';
import { RunTranslator } from './run-translator.js';

let position = 0;
function recorded(type: string, data: JsonObject): RecordedEvent {
  position += 1;
  return {
    eventId: `e${position}`,
    type,
    streamId: 'run-r1',
    streamPosition: position,
    logPosition: { commit: BigInt(position), prepare: BigInt(position) },
    data,
    metadata: {},
    recordedAt: new Date(0),
  };
}

const chunk = (event: string, data: JsonObject | JsonObject[]): RecordedEvent =>
  recorded('RunStepEmitted', { seq: position, event, data });

function translateAll(
  events: RecordedEvent[],
): { method: string; namespace: readonly string[]; data: unknown }[] {
  const translator = new RunTranslator('r1');
  return events.flatMap((event) => translator.translate(event));
}

const finished = (status: string, extra: JsonObject = {}): RecordedEvent =>
  recorded('RunFinished', { status, interrupts: {}, error: null, ...extra });

describe('RunTranslator', () => {
  it('starts and ends the root lifecycle with the graph name, and a subgraph on first sight', () => {
    const events = translateAll([
      recorded('RunCreated', { graph_id: 'subgraph' }),
      recorded('RunStarted', {}),
      chunk('updates|research:7', { search: { notes: ['a'] } }),
      chunk('updates', { research: { notes: ['a'] } }),
      finished('success'),
    ]);
    expect(events.map((event) => [event.method, event.namespace, event.data])).toEqual([
      ['lifecycle', [], { event: 'running', graph_name: 'subgraph' }],
      ['lifecycle', ['research:7'], { event: 'started', graph_name: 'research' }],
      ['updates', ['research:7'], { node: 'search', values: { notes: ['a'] } }],
      ['updates', [], { node: 'research', values: { notes: ['a'] } }],
      ['lifecycle', ['research:7'], { event: 'completed', graph_name: 'research' }],
      ['lifecycle', [], { event: 'completed', graph_name: 'subgraph' }],
    ]);
  });

  it('takes interrupts out of values and updates as input.requested, once each, and ends interrupted', () => {
    const interrupt = { id: 'i1', value: { question: 'ok?' } };
    const events = translateAll([
      recorded('RunStarted', {}),
      chunk('updates', { __interrupt__: [interrupt] }),
      chunk('values', { draft: 'x', __interrupt__: [interrupt] }),
      finished('success', { interrupts: { task: [interrupt] } }),
    ]);
    expect(events.map((event) => event.method)).toEqual([
      'lifecycle',
      'input.requested',
      'values',
      'lifecycle',
    ]);
    expect(events[1]?.data).toEqual({ interrupt_id: 'i1', payload: { question: 'ok?' } });
    expect(events[2]?.data).toEqual({ draft: 'x' });
    expect(events[3]?.data).toMatchObject({ event: 'interrupted' });
  });

  it('tells input.answered when a run resuming interrupts by id starts', () => {
    const id = '0013f6e704a4238d601e5fb119a8f91e';
    const events = translateAll([
      recorded('RunCreated', { graph_id: 'interrupt', command: { resume: { [id]: true } } }),
      recorded('RunStarted', {}),
    ]);
    expect(events.map((event) => [event.method, event.data])).toEqual([
      ['lifecycle', { event: 'running', graph_name: 'interrupt' }],
      ['input.answered', { interrupt_ids: [id] }],
    ]);
    const plainResume = translateAll([
      recorded('RunCreated', { command: { resume: { approved: true } } }),
      recorded('RunStarted', {}),
    ]);
    expect(plainResume.map((event) => event.method)).toEqual(['lifecycle']);
  });

  it('ends a failed run as failed with its error, and tells custom and tool events', () => {
    const events = translateAll([
      chunk('custom', { kind: 'progress' }),
      chunk('custom', { name: 'audio', payload: 1 }),
      chunk('tools', { event: 'on_tool_start', toolCallId: 'c1', name: 'search', input: 'q' }),
      chunk('tools', { event: 'on_tool_error', toolCallId: 'c1', error: { message: 'down' } }),
      finished('error', { error: { error: 'ValueError', message: 'boom' } }),
    ]);
    expect(events.map((event) => event.data)).toEqual([
      { payload: { kind: 'progress' } },
      { name: 'audio', payload: 1 },
      { event: 'tool-started', tool_call_id: 'c1', tool_name: 'search', input: 'q' },
      { event: 'tool-error', tool_call_id: 'c1', message: 'down' },
      { event: 'failed', graph_name: 'root', error: 'boom' },
    ]);
  });
});
