import type { Readable } from 'node:stream';

/** The OS user and group a runtime drops to before it loads the application. */
export type RuntimeIdentity = { uid: number; gid: number };

/** What a spare runtime is told when it is put to work: the environment, and whom to run as. */
export type Assignment = { env: Record<string, string>; identity?: RuntimeIdentity };

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
  const identity = identityOf((parsed as { identity?: unknown }).identity);
  return { env: Object.fromEntries(entries) as Record<string, string>, identity };
}

function identityOf(value: unknown): RuntimeIdentity | undefined {
  if (value === undefined || value === null) return undefined;
  const { uid, gid } = value as { uid?: unknown; gid?: unknown };
  const valid = (id: unknown): id is number => Number.isInteger(id) && (id as number) > 0;
  if (!valid(uid) || !valid(gid)) {
    throw new Error('The assignment identity must be {"uid": n, "gid": n} with positive integers');
  }
  return { uid, gid };
}

/**
 * Becomes the given user and group, with no supplementary groups, for good: what the
 * application's code does afterwards has only that user's rights, and what it writes is its own
 * alone (umask 077).
 */
export function dropPrivileges(identity: RuntimeIdentity): void {
  process.umask(0o077);
  process.setgroups?.([]);
  process.setgid?.(identity.gid);
  process.setuid?.(identity.uid);
  if (process.getuid?.() !== identity.uid || process.getgid?.() !== identity.gid) {
    throw new Error(`Could not run as uid ${identity.uid} gid ${identity.gid}`);
  }
}
