import { afterEach, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DatabaseGateOptions } from './database-gate.js';
import { DatabaseGates } from './database-gates.js';

/** A gate process that opens gates but never answers a close: a stuck one. */
const STUCK_ON_CLOSE = `
process.on('message', (request) => {
  if (request.kind === 'open') process.send({ kind: 'opened', id: request.id });
});
process.on('disconnect', () => process.exit(0));
`;

const OPTIONS = {} as DatabaseGateOptions;
const BOUND_MS = 300;

describe('DatabaseGates.close', () => {
  let dir: string;
  let gates: DatabaseGates | undefined;

  afterEach(async () => {
    await gates?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('ends within its bound when the gate process does not answer, killing that process', async () => {
    dir = await mkdtemp(join(tmpdir(), 'berth-gates-'));
    const script = join(dir, 'stuck-gate.mjs');
    await writeFile(script, STUCK_ON_CLOSE);
    const errors: string[] = [];
    let processEnded: () => void = () => undefined;
    const ended = new Promise<void>((resolve) => (processEnded = resolve));
    gates = new DatabaseGates(
      (error) => {
        errors.push(error.message);
        if (error.message.startsWith('The database gate process ended')) processEnded();
      },
      script,
      BOUND_MS,
    );
    await gates.open('a', OPTIONS);
    await gates.open('b', OPTIONS);
    const stuck = gates.pid;

    await gates.close('a');
    expect(errors).toEqual([
      `The database gate process did not close a gate within ${BOUND_MS} ms: it is killed and started again`,
    ]);

    await ended;
    expect(errors[1]).toBe('The database gate process ended (SIGKILL)');
    // Started again, it serves the next request in a process of its own.
    await gates.open('c', OPTIONS);
    expect(gates.pid).toBeDefined();
    expect(gates.pid).not.toBe(stuck);
  });
});
