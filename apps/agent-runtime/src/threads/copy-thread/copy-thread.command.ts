import { Command } from '@nestjs/cqrs';
import type { AdmittedCopy } from '../thread-copy-admission.js';
import type { Thread } from '../thread.resource.js';

/** A new thread with the source's metadata, state and whole checkpoint history. */
export class CopyThread extends Command<Thread> {
  constructor(
    readonly sourceId: string,
    readonly now: string,
    /** The copy's id and metadata as the application's authorization admitted them. */
    readonly admitted?: AdmittedCopy,
  ) {
    super();
  }
}
