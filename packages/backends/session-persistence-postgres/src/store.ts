/**
 * The connection pool of one backend instance: node-postgres `Pool` with the configured size, statement timeout,
 * connect timeout and TLS; `bigint` columns read as numbers (every stored integer is a safe integer); every failure
 * mapped to a persistence code (faults.ts). Idle connections the server drops are discarded, never thrown.
 */
import pg from 'pg'
import { mapFault } from './faults.ts'
import { Statements } from './sql.ts'
import type { PostgresSslConfig } from './types.ts'

/** Everything the store needs from the validated plugin config. */
export interface StoreOptions {
  readonly connectionString: string
  readonly schema: string
  readonly poolSize: number
  readonly statementTimeoutMs: number
  readonly connectTimeoutMs: number
  readonly ssl: PostgresSslConfig
}

const INT8_OID = 20

/** `bigint` as a JS number; the backend stores only safe integers (seqs, epoch ms, CRC-32 values, revisions). */
const TYPES = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8_OID) return (value: string) => Number(value)
    return pg.types.getTypeParser(oid, format ?? 'text')
  },
} as pg.CustomTypesConfig

/** `postgresql://user@host:port/database (schema s)`: the store named without its password. */
export function storeLabel(connectionString: string, schema: string): string {
  try {
    const url = new URL(connectionString)
    url.password = ''
    url.search = ''
    return `${url.protocol}//${url.username === '' ? '' : `${url.username}@`}${url.host}${url.pathname} (schema ${schema})`
  } catch {
    return `postgresql (schema ${schema})`
  }
}

/** A client checked out of the pool. */
export type Client = pg.PoolClient

/**
 * The `application_name` of every connection: `logbook pid <pid>`, so `pg_stat_activity` shows which process of which
 * host holds a connection (the lease row names the same pid).
 */
export function applicationName(pid: number = process.pid): string {
  return `logbook pid ${pid}`
}

/** The pool, the schema's statements and fault mapping. */
export class PgStore {
  readonly label: string
  readonly sql: Statements
  readonly options: StoreOptions
  private readonly pool: pg.Pool

  constructor(options: StoreOptions) {
    this.options = options
    this.label = storeLabel(options.connectionString, options.schema)
    this.sql = new Statements(options.schema)
    this.pool = new pg.Pool({
      connectionString: options.connectionString,
      max: options.poolSize,
      connectionTimeoutMillis: options.connectTimeoutMs,
      idleTimeoutMillis: 10_000,
      allowExitOnIdle: true,
      application_name: applicationName(),
      ssl: options.ssl === false ? false : options.ssl === true ? true : { ...options.ssl },
      types: TYPES,
      ...(options.statementTimeoutMs > 0 ? { statement_timeout: options.statementTimeoutMs } : {}),
    })
    // An idle connection the server closed (restart, pg_terminate_backend) is dropped by the pool; the next
    // checkout opens a new one, so the event carries nothing to act on.
    this.pool.on('error', () => {})
  }

  /** Map a failure to the documented codes. */
  fault(error: unknown): unknown {
    return mapFault(error, this.label, this.options.statementTimeoutMs)
  }

  /** Run one statement on any pooled connection (autocommit) and return its rows. @throws mapped faults. */
  async query<R = Record<string, unknown>>(text: string, values: readonly unknown[] = []): Promise<R[]> {
    try {
      return (await this.pool.query(text, values as unknown[])).rows as R[]
    } catch (error) {
      throw this.fault(error)
    }
  }

  /** Check a client out. @throws mapped faults (`STORE_IO` `connection` when no connection can be made). */
  async connect(): Promise<Client> {
    try {
      return await this.pool.connect()
    } catch (error) {
      throw this.fault(error)
    }
  }

  /**
   * Run `fn` inside one transaction on one client (`begin` is the BEGIN statement), committing on success and
   * rolling back on any error; a client whose rollback failed is destroyed instead of returned.
   * @throws what `fn` throws, mapped.
   */
  async transaction<T>(fn: (client: Client) => Promise<T>, begin = 'BEGIN'): Promise<T> {
    const client = await this.connect()
    let broken: Error | undefined
    try {
      await client.query(begin)
      const result = await fn(client)
      await client.query('COMMIT')
      return result
    } catch (error) {
      try {
        await client.query('ROLLBACK')
      } catch (rollbackError) {
        broken = rollbackError as Error
      }
      throw this.fault(error)
    } finally {
      client.release(broken)
    }
  }

  /**
   * Read in one snapshot: a `REPEATABLE READ READ ONLY` transaction in which the planner avoids sorts, so a session's
   * rows come in `(session_id, seq)` key order as the server reads them rather than after a sort of the whole log
   * (which spills to disk beyond `work_mem` and sends nothing until it ends).
   */
  snapshot<T>(fn: (client: Client) => Promise<T>): Promise<T> {
    return this.transaction(fn, 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; SET LOCAL enable_sort = off')
  }

  /** Close every connection. Idempotent. */
  async end(): Promise<void> {
    if (this.pool.ended) return
    await this.pool.end()
  }
}
