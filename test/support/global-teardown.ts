// Jest runs the compiled copy of this file (dist/), outside its module system: `npm test` builds first.
import { rm } from 'node:fs/promises';
import { basename } from 'node:path';

export default async function globalTeardown(): Promise<void> {
  await globalThis.berthStopTestServer?.();
  const state = process.env.XDG_STATE_HOME;
  if (state && basename(state).startsWith('berth-test-state-')) {
    await rm(state, { recursive: true, force: true });
  }
}
