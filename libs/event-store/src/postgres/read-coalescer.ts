/**
 * One query for the identical reads asked within one turn of the event loop: the projection
 * runners of a process, woken by the same append, all read the log after the same position.
 * What each read needs (its demand) is merged into the query's. The query starts after every
 * read it serves was asked (a read never joins a query already running), so each read still
 * sees every commit made before it was asked.
 */
export class ReadCoalescer<T, Demand> {
  private readonly gathering = new Map<string, { demand: Demand; read: Promise<T> }>();

  constructor(private readonly merge: (gathered: Demand, asked: Demand) => Demand) {}

  read(key: string, demand: Demand, query: (demand: Demand) => Promise<T>): Promise<T> {
    const gathered = this.gathering.get(key);
    if (gathered) {
      gathered.demand = this.merge(gathered.demand, demand);
      return gathered.read;
    }
    const entry = { demand, read: Promise.resolve() as Promise<T> };
    entry.read = new Promise<T>((resolve, reject) => {
      setImmediate(() => {
        this.gathering.delete(key);
        query(entry.demand).then(resolve, reject);
      });
    });
    this.gathering.set(key, entry);
    return entry.read;
  }
}
