/**
 * One query for the identical reads asked within one turn of the event loop: the projection
 * runners of a process, woken by the same append, all read the log after the same position.
 * The query starts after every read it serves was asked (a read never joins a query already
 * running), so each read still sees every commit made before it was asked.
 */
export class ReadCoalescer<T> {
  private readonly gathering = new Map<string, Promise<T>>();

  read(key: string, query: () => Promise<T>): Promise<T> {
    const gathered = this.gathering.get(key);
    if (gathered) return gathered;
    const read = new Promise<T>((resolve, reject) => {
      setImmediate(() => {
        this.gathering.delete(key);
        query().then(resolve, reject);
      });
    });
    this.gathering.set(key, read);
    return read;
  }
}
