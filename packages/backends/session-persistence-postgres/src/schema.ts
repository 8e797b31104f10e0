/**
 * The versioned schema (02 §6b "Schema"): created or migrated at start in ONE transaction that first takes a
 * transaction-scoped advisory lock named after the schema, so hosts booting at once queue instead of racing. The
 * `logbook_store` row records the store id and `schema_version`; a newer version is refused naming the direction,
 * and `logbook_*` tables that are not exactly this backend's are refused as foreign.
 */
import { randomUUID } from 'node:crypto'
import { SessionPersistenceError } from '@logbook/session-persistence'
import { REFERENCE_COLUMNS } from './sql.ts'
import type { Client, PgStore } from './store.ts'

/** The schema version this build reads and writes. */
export const LOGBOOK_PG_SCHEMA_VERSION = 2

/**
 * Steps from version `v` to `v + 1`, in order; the start transaction runs every step from the stored version on and
 * then records this build's version.
 */
const MIGRATIONS: Readonly<Record<number, (client: Client, store: PgStore) => Promise<void>>> = {
  // 1 → 2: event rows lose their foreign key to the session row; a delete removes them itself.
  1: async (client, store) => {
    const keys = (await client.query<{ conname: string }>(store.sql.eventForeignKeys)).rows
    for (const key of keys) await client.query(store.sql.dropEventConstraint(key.conname))
  },
}

interface ColumnRow {
  readonly table_name: string
  readonly column_name: string
  readonly data_type: string
  readonly is_nullable: string
}

const foreign = (store: PgStore, message: string, details: Record<string, unknown>): SessionPersistenceError =>
  new SessionPersistenceError('STORE_FOREIGN', `store ${store.label} is not a Logbook store: ${message}`, { location: store.label, details })

const incompatible = (store: PgStore, message: string, details: Record<string, unknown>): SessionPersistenceError =>
  new SessionPersistenceError('STORE_INCOMPATIBLE', `store ${store.label}: ${message}`, { location: store.label, details })

/** Why the found columns of `table` differ from the reference, or `undefined`. */
function tableProblem(table: string, found: readonly ColumnRow[]): string | undefined {
  const wanted = REFERENCE_COLUMNS[table]!
  const shape = (c: readonly [string, string, string]): string => `${c[0]} ${c[1]}${c[2] === 'NO' ? ' NOT NULL' : ''}`
  const have = found.map(c => shape([c.column_name, c.data_type, c.is_nullable]))
  const want = wanted.map(shape)
  if (have.join(', ') === want.join(', ')) return undefined
  return `table ${table} has columns (${have.join(', ')}), expected (${want.join(', ')})`
}

/** Check (and, when absent, create) the schema; returns the store id. Runs inside the locked start transaction. */
async function checkOrCreate(client: Client, store: PgStore): Promise<string> {
  const sql = store.sql
  const encoding = (await client.query<{ encoding: string }>(sql.serverEncoding)).rows[0]?.encoding
  if (encoding !== 'UTF8') {
    throw incompatible(store, `the database encoding is ${String(encoding)}; Logbook needs UTF8`, { encoding })
  }
  const columns = (await client.query<ColumnRow>(sql.columns, [sql.schema])).rows
  const byTable = new Map<string, ColumnRow[]>()
  for (const column of columns) byTable.set(column.table_name, [...(byTable.get(column.table_name) ?? []), column])
  if (byTable.size === 0) {
    for (const statement of sql.create()) await client.query(statement)
    const storeId = randomUUID()
    await client.query(sql.insertStore, [storeId, LOGBOOK_PG_SCHEMA_VERSION, Date.now()])
    return storeId
  }
  const storeColumns = byTable.get('logbook_store')
  if (storeColumns === undefined || tableProblem('logbook_store', storeColumns) !== undefined) {
    throw foreign(store, `it holds tables ${[...byTable.keys()].join(', ')} without a Logbook logbook_store table`, { tables: [...byTable.keys()] })
  }
  const row = (await client.query<{ store_id: string; schema_version: number }>(sql.selectStore)).rows[0]
  if (row === undefined) throw foreign(store, 'its logbook_store table has no row', { tables: [...byTable.keys()] })
  let version = row.schema_version
  if (version > LOGBOOK_PG_SCHEMA_VERSION) {
    throw incompatible(store, `written by a newer Logbook (schema version ${version}, this build reads ${LOGBOOK_PG_SCHEMA_VERSION}): upgrade Logbook`, {
      direction: 'newer', found: version, supported: LOGBOOK_PG_SCHEMA_VERSION,
    })
  }
  for (; version < LOGBOOK_PG_SCHEMA_VERSION; version++) {
    const step = MIGRATIONS[version]
    if (step === undefined) {
      throw incompatible(store, `schema version ${version}, older than ${LOGBOOK_PG_SCHEMA_VERSION}; there is no upgrade path`, {
        direction: 'older', found: version, supported: LOGBOOK_PG_SCHEMA_VERSION,
      })
    }
    await step(client, store)
  }
  if (row.schema_version !== LOGBOOK_PG_SCHEMA_VERSION) await client.query(sql.setSchemaVersion, [LOGBOOK_PG_SCHEMA_VERSION])
  for (const table of Object.keys(REFERENCE_COLUMNS)) {
    const found = byTable.get(table)
    const problem = found === undefined ? `table ${table} is missing` : tableProblem(table, found)
    if (problem !== undefined) throw foreign(store, problem, { table })
  }
  return row.store_id
}

/**
 * Bring the configured schema to this build's version and return the store id: one transaction under
 * `pg_advisory_xact_lock(hashtext('logbook:<schema>'))`.
 * @throws SessionPersistenceError `STORE_FOREIGN`, `STORE_INCOMPATIBLE` (`details.direction`), `STORE_IO`.
 */
export function prepareSchema(store: PgStore): Promise<string> {
  return store.transaction(async (client) => {
    await client.query(store.sql.advisoryLock, [`logbook:${store.sql.schema}`])
    return checkOrCreate(client, store)
  })
}
