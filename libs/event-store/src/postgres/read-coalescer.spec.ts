import { describe, expect, it } from '@jest/globals';
import { ReadCoalescer } from './read-coalescer.js';

const union = (a: readonly string[], b: readonly string[]): string[] => [...new Set([...a, ...b])];

describe('ReadCoalescer', () => {
  it('runs one query for the identical reads asked in the same turn, and one per key', async () => {
    const coalescer = new ReadCoalescer<string, readonly string[]>({ merge: union });
    const queries: string[] = [];
    const query = (key: string) => () => {
      queries.push(key);
      return Promise.resolve(`rows of ${key}`);
    };
    const reads = await Promise.all([
      coalescer.read('a', [], query('a')),
      coalescer.read('a', [], query('a')),
      coalescer.read('b', [], query('b')),
      coalescer.read('a', [], query('a')),
    ]);
    expect(reads).toEqual(['rows of a', 'rows of a', 'rows of b', 'rows of a']);
    expect(queries).toEqual(['a', 'b']);
  });

  it('asks the shared query for what every read it serves needs', async () => {
    const coalescer = new ReadCoalescer<string, readonly string[]>({ merge: union });
    const query = (demand: readonly string[]) => Promise.resolve([...demand].sort().join(','));
    const reads = await Promise.all([
      coalescer.read('a', ['Created'], query),
      coalescer.read('a', ['Finished'], query),
      coalescer.read('a', ['Created', 'Deleted'], query),
    ]);
    expect(reads).toEqual(Array(3).fill('Created,Deleted,Finished'));
  });

  it('never lets a read join a query that started before it was asked', async () => {
    const coalescer = new ReadCoalescer<number, readonly string[]>({ merge: union });
    let started = 0;
    let finishFirst: (value: number) => void = () => undefined;
    const first = coalescer.read('a', [], () => {
      started += 1;
      return new Promise<number>((resolve) => {
        finishFirst = resolve;
      });
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toBe(1);
    const second = coalescer.read('a', [], () => {
      started += 1;
      return Promise.resolve(2);
    });
    finishFirst(1);
    expect(await first).toBe(1);
    expect(await second).toBe(2);
    expect(started).toBe(2);
  });

  it('gives every read of a failed query its error', async () => {
    const coalescer = new ReadCoalescer<number, readonly string[]>({ merge: union });
    const failing = () => Promise.reject(new Error('connection lost'));
    const reads = [coalescer.read('a', [], failing), coalescer.read('a', [], failing)];
    for (const read of reads) await expect(read).rejects.toThrow('connection lost');
  });

  describe('reads from different positions', () => {
    /** Rows are numbers; a read asks for those after `after`, `limit` at most. */
    interface After {
      readonly after: number;
    }
    const log = [1, 2, 3, 4, 5, 6];
    const limit = 4;
    const sharing = {
      merge: (gathered: After, asked: After): After => ({
        after: Math.min(gathered.after, asked.after),
      }),
      serve: (rows: number[], asked: After, gathered: After): number[] | undefined =>
        asked.after === gathered.after || rows.length < limit
          ? rows.filter((row) => row > asked.after)
          : undefined,
    };

    /** A coalescer over `log`, and the positions its queries started after. */
    const logReader = () => {
      const queried: number[] = [];
      const query = (demand: After) => {
        queried.push(demand.after);
        return Promise.resolve(log.filter((row) => row > demand.after).slice(0, limit));
      };
      return { coalescer: new ReadCoalescer<number[], After>(sharing), queried, query };
    };

    it('share one query from the earliest, each given what follows its own position', async () => {
      const { coalescer, queried, query } = logReader();
      const reads = await Promise.all([
        coalescer.read('log', { after: 4 }, query),
        coalescer.read('log', { after: 3 }, query),
        coalescer.read('log', { after: 5 }, query),
      ]);
      expect(queried).toEqual([3]);
      expect(reads).toEqual([[5, 6], [4, 5, 6], [6]]);
    });

    it('query alone a read the shared rows cannot tell everything, the query being full', async () => {
      const { coalescer, queried, query } = logReader();
      const reads = await Promise.all([
        coalescer.read('log', { after: 0 }, query),
        coalescer.read('log', { after: 2 }, query),
      ]);
      expect(queried).toEqual([0, 2]);
      expect(reads).toEqual([
        [1, 2, 3, 4],
        [3, 4, 5, 6],
      ]);
    });
  });
});
