import type { Readable } from 'node:stream';

/** What a spare runtime is told when it is put to work: the environment to run with. */
export type Assignment = { env: Record<string, string> };

const MAX_LINE_BYTES = 1024 * 1024;

/**
 * A spare runtime starts before it knows its application, with every platform module loaded,
 * and waits for one JSON line on stdin. Resolves undefined when stdin ends first (the parent
 * went away).
 */
export function awaitAssignment(stdin: Readable): Promise<Assignment | undefined> {
  return new Promise((resolve, reject) => {
    let buffered = '';
    const finish = (outcome: () => void): void => {
      stdin.off('data', onData);
      stdin.off('end', onEnd);
      stdin.pause();
      outcome();
    };
    const onData = (chunk: Buffer): void => {
      buffered += chunk.toString('utf8');
      const newline = buffered.indexOf('\n');
      if (newline < 0) {
        if (buffered.length > MAX_LINE_BYTES) {
          finish(() => {
            reject(new Error('The assignment line is too long'));
          });
        }
        return;
      }
      finish(() => {
        try {
          resolve(parseAssignment(buffered.slice(0, newline)));
        } catch (error) {
          reject(error instanceof Error ? error : new Error(String(error)));
        }
      });
    };
    const onEnd = (): void => {
      finish(() => {
        resolve(undefined);
      });
    };
    stdin.on('data', onData);
    stdin.once('end', onEnd);
    stdin.resume();
  });
}

export function parseAssignment(line: string): Assignment {
  const parsed = JSON.parse(line) as unknown;
  const env = (parsed as { env?: unknown } | null)?.env;
  if (!env || typeof env !== 'object' || Array.isArray(env)) {
    throw new Error('The assignment must be {"env": {...}}');
  }
  const entries = Object.entries(env as Record<string, unknown>);
  if (entries.some(([, value]) => typeof value !== 'string')) {
    throw new Error('Every value of the assignment env must be a string');
  }
  return { env: Object.fromEntries(entries) as Record<string, string> };
}
