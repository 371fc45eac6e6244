/** Revision statuses after which nothing more happens to it. */
export const FINAL_STATUSES: ReadonlySet<string> = new Set([
  'DEPLOYED',
  'CREATE_FAILED',
  'BUILD_FAILED',
  'DEPLOY_FAILED',
  'SKIPPED',
  'INTERRUPTED',
]);

const WORDS: Readonly<Record<string, string>> = {
  CREATING: 'Creating the revision',
  QUEUED: 'Queued',
  AWAITING_BUILD: 'Waiting to build',
  BUILDING: 'Building',
  AWAITING_DEPLOY: 'Waiting to deploy',
  DEPLOYING: 'Deploying',
  DEPLOYED: 'Deployed',
  CREATE_FAILED: 'Could not create the revision',
  BUILD_FAILED: 'Build failed',
  DEPLOY_FAILED: 'Deploy failed',
  SKIPPED: 'Skipped (a newer revision superseded it)',
  INTERRUPTED: 'Interrupted',
};

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** A revision status in words, with its code: "Building (BUILDING)". */
export function describeStatus(status: string): string {
  const words = WORDS[status];
  return words ? `${words} (${status})` : status;
}

/** The live line on a terminal: a spinner frame, the status in words and the seconds so far. */
export function formatStatusLine(status: string, elapsedMs: number, frame: number): string {
  const spinner = FINAL_STATUSES.has(status) ? ' ' : (SPINNER[frame % SPINNER.length] ?? ' ');
  return `${spinner} ${describeStatus(status)}  ${Math.floor(elapsedMs / 1000)}s`;
}

export interface Output {
  write(text: string): void;
}

/**
 * Reports a revision's progress. On a terminal, one line rewritten in place as time passes and
 * the status changes; elsewhere one line per status change, so that CI logs stay readable.
 */
export class StatusLine {
  private status: string | undefined;
  private frame = 0;
  private shown = false;

  constructor(
    private readonly out: Output,
    private readonly live: boolean,
    private readonly startedAt: number = Date.now(),
  ) {}

  /** The revision's status as last polled; on a terminal also advances the spinner. */
  update(status: string, now: number = Date.now()): void {
    const changed = status !== this.status;
    this.status = status;
    const elapsed = now - this.startedAt;
    if (this.live) {
      this.frame += 1;
      this.out.write(`\r\x1b[2K${formatStatusLine(status, elapsed, this.frame)}`);
      this.shown = true;
      if (FINAL_STATUSES.has(status)) this.end();
    } else if (changed) {
      this.out.write(`${describeStatus(status)}  ${Math.floor(elapsed / 1000)}s\n`);
    }
  }

  /** Ends the live line so that what follows starts on a line of its own. */
  end(): void {
    if (this.live && this.shown) this.out.write('\n');
    this.shown = false;
  }
}
