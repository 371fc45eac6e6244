/**
 * The process that holds every deployment's database gate (database-gate.ts), so that the bytes
 * of jailed runtimes' database connections cross its event loop, not the control plane's. Told
 * over its IPC channel which gates to open and close (database-gates.ts); ends with its parent.
 */
import { DatabaseGate, type DatabaseGateOptions } from './database-gate.js';

export type GateRequest =
  | { readonly kind: 'open'; readonly id: string; readonly options: DatabaseGateOptions }
  | { readonly kind: 'close'; readonly id: string };

export type GateReply =
  | { readonly kind: 'opened' | 'closed'; readonly id: string }
  | { readonly kind: 'failed'; readonly id: string; readonly message: string };

const gates = new Map<string, DatabaseGate>();

async function handle(request: GateRequest): Promise<GateReply> {
  const { id } = request;
  try {
    await gates.get(id)?.close();
    gates.delete(id);
    if (request.kind === 'close') return { kind: 'closed', id };
    const gate = new DatabaseGate(request.options);
    await gate.listen();
    gates.set(id, gate);
    return { kind: 'opened', id };
  } catch (error) {
    return { kind: 'failed', id, message: error instanceof Error ? error.message : String(error) };
  }
}

// One request at a time: an open and a close of one gate never interleave.
let queue = Promise.resolve();
process.on('message', (request: GateRequest) => {
  queue = queue.then(async () => {
    process.send?.(await handle(request));
  });
});
// The control plane is gone (or let go of it): the gates go too.
process.on('disconnect', () => process.exit(0));
