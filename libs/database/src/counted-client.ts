import pg from 'pg';

/** What this process has asked of PostgreSQL: statements sent, and transactions they committed. */
export const databaseWork = { statements: 0, transactions: 0 };

const OPENS_TRANSACTION = /^\s*(begin|start\s+transaction)\b/i;
const ENDS_TRANSACTION = /^\s*(commit|end)\b/i;
const ABORTS_TRANSACTION = /^\s*rollback\b/i;

function textOf(config: unknown): string {
  if (typeof config === 'string') return config;
  if (typeof config === 'object' && config !== null && 'text' in config) {
    return String(config.text);
  }
  return '';
}

/**
 * A pg client that counts its statements, and a transaction for each statement sent outside an
 * explicit transaction and for each COMMIT, as PostgreSQL's `xact_commit` does (rolled back
 * ones are not counted). Pools make theirs with it (`new pg.Pool({ Client: CountedClient })`).
 */
export class CountedClient extends pg.Client {
  inTransaction = false;
}

const { prototype: plainClient } = pg.Client;
CountedClient.prototype.query = function (this: CountedClient, ...args: unknown[]) {
  const text = textOf(args[0]);
  databaseWork.statements += 1;
  if (OPENS_TRANSACTION.test(text)) {
    this.inTransaction = true;
  } else if (ENDS_TRANSACTION.test(text)) {
    if (this.inTransaction) databaseWork.transactions += 1;
    this.inTransaction = false;
  } else if (ABORTS_TRANSACTION.test(text)) {
    this.inTransaction = false;
  } else if (!this.inTransaction) {
    databaseWork.transactions += 1;
  }
  // The plain client's own query, on this client: it is meant to be called unbound here.
  // eslint-disable-next-line @typescript-eslint/unbound-method
  return Reflect.apply(plainClient.query, this, args) as unknown;
} as typeof plainClient.query;
