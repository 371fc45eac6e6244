import type pg from 'pg';
import type { DataSource, EntityMetadata, ObjectLiteral, ValueTransformer } from 'typeorm';
import type { LogPosition } from '../log-position.js';
import type { Projection } from './projection.js';

/**
 * One projection batch written as one statement, so one round trip and one implicit transaction:
 * the checkpoint moves from where this runner left it (compare and set), and the rows are upserted
 * and deleted only if it did. The rows go as JSON, turned into the table's own row type by
 * `jsonb_populate_recordset`, so the statement is the same for every batch: it is prepared once
 * per connection, on the pool of the data source's driver.
 */
export class BatchStatement<Row extends ObjectLiteral> {
  private readonly pool: pg.Pool;
  /** The projection's name: its checkpoint row's, and the prepared statement's. */
  private readonly name: string;
  private readonly sql: string;
  private readonly columns: readonly {
    property: string;
    column: string;
    /** The column's transformers applied, as TypeORM's own writes would apply them. */
    toDatabase: (value: unknown) => unknown;
  }[];
  private readonly key: { property: string; column: string };

  constructor(dataSource: DataSource, projection: Projection<Row>) {
    const { master } = dataSource.driver as unknown as { master?: pg.Pool };
    if (!master) throw new Error(`${projection.name}: read models need a PostgreSQL data source`);
    this.pool = master;
    this.name = projection.name;
    const metadata = dataSource.getMetadata(projection.entity);
    this.columns = metadata.columns.map((column) => ({
      property: column.propertyName,
      column: column.databaseName,
      toDatabase: toDatabaseOf(column.transformer),
    }));
    const key = this.columns.find((column) => column.property === projection.key);
    if (!key) throw new Error(`${projection.name}: no column for the key ${projection.key}`);
    this.key = key;
    this.sql = statementFor(metadata, this.columns, key.column);
  }

  /** Writes the batch if the checkpoint is still at `from`; false, writing nothing, if not. */
  async write(
    from: LogPosition,
    to: LogPosition,
    upserts: readonly Row[],
    deletes: readonly string[],
  ): Promise<boolean> {
    const { rows } = await this.pool.query<{ advanced: boolean }>({
      name: `projection_batch:${this.name}`,
      text: this.sql,
      values: [
        this.name,
        to.commit.toString(),
        to.prepare.toString(),
        from.commit.toString(),
        from.prepare.toString(),
        JSON.stringify(upserts.map((row) => this.toColumns(row))),
        JSON.stringify(deletes.map((key) => ({ [this.key.column]: key }))),
      ],
    });
    return rows[0]?.advanced === true;
  }

  private toColumns(row: Row): Record<string, unknown> {
    const values: Record<string, unknown> = {};
    for (const { property, column, toDatabase } of this.columns) {
      values[column] = toDatabase(row[property]);
    }
    return values;
  }
}

const unchanged = (value: unknown): unknown => value;

function toDatabaseOf(
  transformer: ValueTransformer | ValueTransformer[] | undefined,
): (value: unknown) => unknown {
  if (transformer === undefined) return unchanged;
  const each = [transformer].flat();
  return (value) => each.reduce((changed: unknown, one) => one.to(changed) as unknown, value);
}

function statementFor(
  metadata: EntityMetadata,
  columns: readonly { column: string }[],
  key: string,
): string {
  const quote = (name: string): string => `"${name.replace(/"/g, '""')}"`;
  const table = metadata.tablePath.split('.').map(quote).join('.');
  const names = columns.map(({ column }) => quote(column)).join(', ');
  const updated = columns
    .filter(({ column }) => column !== key)
    .map(({ column }) => `${quote(column)} = excluded.${quote(column)}`);
  const onConflict = updated.length > 0 ? `do update set ${updated.join(', ')}` : 'do nothing';
  return `
    with advanced as (
      update projection_checkpoints
         set commit_position = $2, prepare_position = $3, updated_at = now()
       where name = $1 and commit_position = $4 and prepare_position = $5
      returning 1
    ), upserted as (
      insert into ${table} (${names})
      select ${names} from jsonb_populate_recordset(null::${table}, $6::jsonb)
       where exists (select 1 from advanced)
      on conflict (${quote(key)}) ${onConflict}
      returning 1
    ), deleted as (
      delete from ${table}
       where ${quote(key)} in (select ${quote(key)} from jsonb_populate_recordset(null::${table}, $7::jsonb))
         and exists (select 1 from advanced)
      returning 1
    )
    select exists (select 1 from advanced) as advanced`;
}
