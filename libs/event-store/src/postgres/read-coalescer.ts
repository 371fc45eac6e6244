/** How reads of one key share a query. */
export interface ReadSharing<T, Demand> {
  /** What the shared query must ask for, so that it holds what both reads need. */
  merge(gathered: Demand, asked: Demand): Demand;
  /**
   * What a read gets of the rows the shared query found; undefined when those rows cannot tell
   * it everything it asked for, and it is then queried alone. Unset: every read gets them all.
   */
  serve?(rows: T, asked: Demand, gathered: Demand): T | undefined;
}

/**
 * One query for the reads of one key asked within one turn of the event loop: the projection
 * runners of a process, woken by the same append, all read the log at once, from where each has
 * got to. What each read needs (its demand) is merged into the query's. The query starts after
 * every read it serves was asked (a read never joins a query already running), so each read still
 * sees every commit made before it was asked.
 */
export class ReadCoalescer<T, Demand> {
  private readonly gathering = new Map<string, { demand: Demand; read: Promise<T> }>();

  constructor(private readonly sharing: ReadSharing<T, Demand>) {}

  async read(key: string, demand: Demand, query: (demand: Demand) => Promise<T>): Promise<T> {
    const gathered = this.gathering.get(key) ?? this.gather(key, demand, query);
    if (gathered.demand !== demand) gathered.demand = this.sharing.merge(gathered.demand, demand);
    const rows = await gathered.read;
    if (!this.sharing.serve) return rows;
    return this.sharing.serve(rows, demand, gathered.demand) ?? query(demand);
  }

  private gather(
    key: string,
    demand: Demand,
    query: (demand: Demand) => Promise<T>,
  ): { demand: Demand; read: Promise<T> } {
    const entry = { demand, read: Promise.resolve() as Promise<T> };
    entry.read = new Promise<T>((resolve, reject) => {
      setImmediate(() => {
        this.gathering.delete(key);
        query(entry.demand).then(resolve, reject);
      });
    });
    this.gathering.set(key, entry);
    return entry;
  }
}
