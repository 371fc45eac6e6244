/** One append as the database function takes it: `expected` is encoded as in `es_append`. */
export interface AppendRequest {
  readonly stream: string;
  readonly expected: number;
  readonly events: string;
}

export interface GroupCommitOptions {
  /** Groups being committed at once; appends asked meanwhile wait and go in the next group. */
  readonly maxInFlight: number;
  /** The most appends one group takes. */
  readonly maxGroup: number;
}

interface Waiting<Outcome> {
  readonly request: AppendRequest;
  readonly resolve: (outcome: Outcome) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Gathers the appends asked within one turn of the event loop, and those asked while
 * `maxInFlight` groups are being committed, into groups that `commit` writes in one statement
 * and one transaction each. Each append still gets its own outcome.
 */
export class GroupCommit<Outcome> {
  private waiting: Waiting<Outcome>[] = [];
  private scheduled = false;
  private inFlight = 0;

  constructor(
    private readonly commit: (group: readonly AppendRequest[]) => Promise<readonly Outcome[]>,
    private readonly options: GroupCommitOptions,
  ) {}

  submit(request: AppendRequest): Promise<Outcome> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ request, resolve, reject });
      if (this.scheduled) return;
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        this.dispatch();
      });
    });
  }

  private dispatch(): void {
    while (this.waiting.length > 0 && this.inFlight < this.options.maxInFlight) {
      const group = this.waiting.splice(0, this.options.maxGroup);
      this.inFlight += 1;
      this.commit(group.map((waiting) => waiting.request))
        .then(
          (outcomes) => {
            group.forEach((waiting, index) => {
              const outcome = outcomes[index];
              if (outcome === undefined)
                waiting.reject(new Error('The group commit lost an append'));
              else waiting.resolve(outcome);
            });
          },
          (error: unknown) => {
            for (const waiting of group) waiting.reject(error);
          },
        )
        .finally(() => {
          this.inFlight -= 1;
          this.dispatch();
        });
    }
  }
}
