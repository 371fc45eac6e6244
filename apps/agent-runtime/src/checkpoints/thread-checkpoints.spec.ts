import { describe, expect, it } from '@jest/globals';
import { compareWritesSortKeys, writesSortKey } from '@langchain/langgraph-checkpoint';
import type { JsonObject, JsonValue } from '#libs/event-store';
import {
  CHECKPOINT_METADATA_PATCHED,
  CHECKPOINT_SAVED,
  CHECKPOINT_WRITES_SAVED,
  MalformedCheckpointEventError,
  parseCheckpointEvent,
  type CheckpointSavedData,
  type CheckpointWritesSavedData,
} from './checkpoint-events.js';
import {
  compareWriteRecords,
  foldCheckpointEvents,
  latestCheckpointOf,
  ThreadCheckpoints,
} from './thread-checkpoints.js';

const json = (value: JsonValue) => ({ type: 'json' as const, value });

function saved(
  id: string,
  parent: string | null = null,
  ns = '',
): { type: string; data: JsonObject } {
  const data: CheckpointSavedData = {
    checkpoint_ns: ns,
    checkpoint_id: id,
    parent_checkpoint_id: parent,
    checkpoint: json({ id }),
    metadata: json({ step: 0 }),
  };
  return { type: CHECKPOINT_SAVED, data };
}

function writes(
  checkpointId: string,
  taskId: string,
  entries: [channel: string, idx: number, value: JsonValue][],
  taskPath = '',
  ns = '',
): { type: string; data: JsonObject } {
  const data: CheckpointWritesSavedData = {
    checkpoint_ns: ns,
    checkpoint_id: checkpointId,
    task_id: taskId,
    task_path: taskPath,
    writes: entries.map(([channel, idx, value]) => ({ channel, idx, value: json(value) })),
  };
  return { type: CHECKPOINT_WRITES_SAVED, data };
}

const valuesOf = (thread: ThreadCheckpoints, id: string) =>
  thread
    .writes('', id)
    .map((w) => [w.taskId, w.channel, w.idx, 'value' in w.value ? w.value.value : null]);

describe('ThreadCheckpoints', () => {
  it('finds the latest checkpoint of each namespace by id', () => {
    const thread = foldCheckpointEvents([
      saved('02', '01'),
      saved('01'),
      saved('05', null, 'child:1'),
      saved('03', '02'),
    ]);

    expect(thread.latest('')?.id).toBe('03');
    expect(thread.latest('child:1')?.id).toBe('05');
    expect(thread.latest('other')).toBeUndefined();
    expect(thread.checkpoint('', '02')?.parentId).toBe('01');
    expect(thread.checkpoint('', '01')?.parentId).toBeUndefined();
  });

  it('merges a metadata patch into the JSON metadata of its checkpoint only', () => {
    const patch = (id: string, metadata: JsonObject) => ({
      type: CHECKPOINT_METADATA_PATCHED,
      data: { checkpoint_ns: '', checkpoint_id: id, metadata },
    });
    const thread = foldCheckpointEvents([
      saved('01'),
      saved('02', '01'),
      patch('02', { reviewed: true }),
      patch('02', { by: 'ann' }),
      patch('09', { lost: true }),
    ]);
    expect(thread.checkpoint('', '02')?.metadata).toEqual(
      json({ step: 0, reviewed: true, by: 'ann' }),
    );
    expect(thread.checkpoint('', '01')?.metadata).toEqual(json({ step: 0 }));
    expect(thread.checkpoint('', '09')).toBeUndefined();
    expect(() =>
      parseCheckpointEvent({
        type: CHECKPOINT_METADATA_PATCHED,
        data: { checkpoint_ns: '', checkpoint_id: '02', metadata: 'x' },
      }),
    ).toThrow(MalformedCheckpointEventError);
  });

  it('replaces a checkpoint saved again under the same id', () => {
    const again = saved('01');
    (again.data['metadata'] as { value: JsonValue }).value = { step: 7 };

    const thread = foldCheckpointEvents([saved('01'), again]);

    expect(thread.latest('')?.metadata).toEqual(json({ step: 7 }));
  });

  it('lists newest first, by namespace, id and before', () => {
    const thread = foldCheckpointEvents([
      saved('01'),
      saved('02', '01'),
      saved('03', '02'),
      saved('02a', null, 'child:1'),
    ]);
    const ids = (query: Parameters<ThreadCheckpoints['find']>[0]) =>
      thread.find(query).map((r) => `${r.ns}/${r.id}`);

    expect(ids({ ns: '' })).toEqual(['/03', '/02', '/01']);
    expect(ids({})).toEqual(['/03', 'child:1/02a', '/02', '/01']);
    expect(ids({ ns: '', before: '03' })).toEqual(['/02', '/01']);
    expect(ids({ ns: '', id: '02' })).toEqual(['/02']);
    expect(ids({ ns: '', id: '02', before: '02' })).toEqual([]);
    expect(ids({ ns: 'missing' })).toEqual([]);
  });

  it('keeps the first regular write of a (task, idx) and the last special one', () => {
    const thread = foldCheckpointEvents([
      writes('01', 't1', [
        ['a', 0, 'first'],
        ['b', 1, 'first'],
      ]),
      writes('01', 't1', [
        ['a', 0, 'retry'],
        ['__interrupt__', -3, 'first'],
      ]),
      writes('01', 't1', [['__interrupt__', -3, 'second']]),
    ]);

    expect(valuesOf(thread, '01')).toEqual([
      ['t1', '__interrupt__', -3, 'second'],
      ['t1', 'a', 0, 'first'],
      ['t1', 'b', 1, 'first'],
    ]);
  });

  it('keeps writes that arrive before their checkpoint', () => {
    const thread = foldCheckpointEvents([writes('02', 't', [['x', 0, 1]]), saved('02')]);

    expect(valuesOf(thread, '02')).toEqual([['t', 'x', 0, 1]]);
    expect(thread.writes('child', '02')).toEqual([]);
  });

  it('orders writes by task path, task id, then idx (as live execution applies them)', () => {
    const thread = foldCheckpointEvents([
      writes(
        '01',
        'b',
        [
          ['x', 1, 'b1'],
          ['x', 0, 'b0'],
        ],
        '~__pregel_pull, 2',
      ),
      writes('01', 'a', [['x', 0, 'a0']], '~__pregel_pull, 2'),
      writes('01', 'z', [['x', 0, 'input']], ''),
      writes('01', 'c', [['x', 0, 'c0']], '~__pregel_pull, 10'),
    ]);

    expect(valuesOf(thread, '01').map((w) => w[3])).toEqual(['input', 'c0', 'a0', 'b0', 'b1']);
  });

  it('walks the ancestors of a checkpoint as far as they are stored', () => {
    const thread = foldCheckpointEvents([saved('02', '01'), saved('03', '02'), saved('04', '03')]);

    expect(thread.ancestors('', '04').map((r) => r.id)).toEqual(['03', '02']);
    expect(thread.ancestors('', 'missing')).toEqual([]);
  });
});

describe('compareWriteRecords', () => {
  it("agrees with LangGraph's compareWritesSortKeys, code points included", () => {
    const keys: [string, string, number][] = [
      ['', 'b', 0],
      ['', 'a', 3],
      ['', 'a', -1],
      ['\uffff', 'a', 0],
      ['😀', 'a', 0],
      ['p', 'a', 10],
      ['p', 'a', 2],
    ];
    const ours = [...keys].sort((a, b) =>
      compareWriteRecords(
        { taskPath: a[0], taskId: a[1], idx: a[2] },
        { taskPath: b[0], taskId: b[1], idx: b[2] },
      ),
    );
    const theirs = [...keys].sort((a, b) =>
      compareWritesSortKeys(writesSortKey(...a), writesSortKey(...b)),
    );

    expect(ours).toEqual(theirs);
    expect(ours.at(-1)?.[0]).toBe('😀');
  });
});

describe('latestCheckpointOf', () => {
  it('folds recorded events, skipping other types', () => {
    const events = [saved('01'), { type: 'SomethingElse', data: {} }, saved('02', '01')];

    expect(latestCheckpointOf(events)?.id).toBe('02');
    expect(latestCheckpointOf(events, 'child')).toBeUndefined();
    expect(latestCheckpointOf([])).toBeUndefined();
  });
});

describe('parseCheckpointEvent', () => {
  it('reads base64 values and a missing task path', () => {
    const event = writes('01', 't', []);
    delete event.data['task_path'];
    event.data['writes'] = [{ channel: 'c', idx: 0, value: { type: 'bytes', base64: 'AQI=' } }];

    expect(parseCheckpointEvent(event)).toEqual({
      type: CHECKPOINT_WRITES_SAVED,
      data: {
        checkpoint_ns: '',
        checkpoint_id: '01',
        task_id: 't',
        task_path: '',
        writes: [{ channel: 'c', idx: 0, value: { type: 'bytes', base64: 'AQI=' } }],
      },
    });
  });

  it('refuses a checkpoint event of the wrong shape', () => {
    expect(() => parseCheckpointEvent({ type: CHECKPOINT_SAVED, data: {} })).toThrow(
      MalformedCheckpointEventError,
    );
    const noValue = saved('01');
    noValue.data['checkpoint'] = { type: 'json' };
    expect(() => parseCheckpointEvent(noValue)).toThrow(/checkpoint has neither/);
    const badIdx = writes('01', 't', [['c', 0, 1]]);
    (badIdx.data['writes'] as JsonObject[])[0] = { channel: 'c', idx: 0.5, value: json(1) };
    expect(() => parseCheckpointEvent(badIdx)).toThrow(/idx is not an integer/);
  });

  it('ignores other event types', () => {
    expect(parseCheckpointEvent({ type: 'RunStarted', data: {} })).toBeUndefined();
  });
});
