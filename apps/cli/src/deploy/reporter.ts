import { StatusLine } from './status-line.js';

/**
 * Where a command's progress goes: sentences on stdout for people, or with --json one JSON
 * object per line and nothing else on stdout, for CI.
 */
export class Reporter {
  private statusLine: StatusLine | undefined;

  constructor(
    readonly json: boolean,
    private readonly terminal: boolean,
  ) {}

  /** A sentence for people (not printed with --json). */
  note(text: string): void {
    if (this.json) return;
    this.statusLine?.end();
    process.stdout.write(`${text}\n`);
  }

  /** An event for machines (printed only with --json). */
  event(event: string, fields: Record<string, unknown>): void {
    if (this.json) process.stdout.write(`${JSON.stringify({ event, ...fields })}\n`);
  }

  /** A revision's polled status: the live line, or one line (or event) per change. */
  status(status: string): void {
    if (this.json) return;
    this.statusLine ??= new StatusLine(process.stdout, this.terminal);
    this.statusLine.update(status);
  }

  /** Ends a live line before other output. */
  end(): void {
    this.statusLine?.end();
  }
}
