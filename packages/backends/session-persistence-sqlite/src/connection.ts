/**
 * The one connection of a backend instance (02 §6): file checks before opening, an existing file identified on a
 * read-only connection before a read-write one may touch it, pragmas read back, identity checked at start and
 * whenever `schema_version` moves, the file created whole only by the first write, and every statement run inside a
 * deferred (read) or `BEGIN IMMEDIATE` (write) transaction with SQLite failures mapped to persistence codes.
 */

import Database from 'better-sqlite3'
import { SessionPersistenceError } from '@logbook/session-persistence'
import { createStoreFile } from './create-store.ts'
import { checkStorePath } from './file-checks.ts'
import { identifyFile } from './file-identity.ts'
import { checkIdentity, createSchema, LOGBOOK_SCHEMA_VERSION, type SchemaVersion, type StoreIdentity } from './identity.ts'
import { applyPragmas, type PragmaSettings } from './pragmas.ts'
import { sql, versioned, type StatementName } from './sql.ts'

/** Everything the connection needs from the validated plugin config. */
export interface ConnectionOptions extends PragmaSettings {
  /** Absolute database path, or `':memory:'`. */
  readonly path: string
  readonly checkPermissions: boolean
}

/** A prepared statement of `resources/sql`, typed loosely: rows are checked where they are read. */
export type Statement = Database.Statement<unknown[], unknown>

/** The `SQLITE_*` code of a better-sqlite3 error, else `undefined`. */
export const sqliteCode = (error: unknown): string | undefined => {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' && code.startsWith('SQLITE_') ? code : undefined
}

/** True iff `error` is SQLite's "database is locked/busy" after the busy timeout. */
export const isBusyError = (error: unknown): boolean => sqliteCode(error)?.startsWith('SQLITE_BUSY') === true

/**
 * Map a failure inside a transaction to the documented codes: persistence errors pass through, `SQLITE_BUSY` and
 * I/O errors become retryable `STORE_IO`, a file that is not a database `STORE_FOREIGN`; other errors (bugs) pass.
 */
export function mapStoreError(error: unknown, path: string): unknown {
  if (error instanceof SessionPersistenceError) return error
  const code = sqliteCode(error)
  if (code === undefined) return error
  if (code === 'SQLITE_NOTADB') {
    return new SessionPersistenceError('STORE_FOREIGN', `store ${path} is not a Logbook store (not an SQLite database)`, {
      location: path,
      cause: error,
    })
  }
  const what = isBusyError(error) ? 'database is busy' : (error as Error).message
  return new SessionPersistenceError('STORE_IO', `store ${path}: ${what} (${code})`, { location: path, cause: error })
}

/** One SQLite connection with lazy creation, identity tracking and transaction helpers. */
export class StoreConnection {
  readonly path: string
  private readonly options: ConnectionOptions
  private db: Database.Database | undefined
  private identity: StoreIdentity | undefined
  private schemaVersion = -1
  private readonly statements = new Map<StatementName, Statement>()
  private closed = false
  private committed = 0

  constructor(options: ConnectionOptions) {
    this.options = options
    this.path = options.path
  }

  /** The store id once the database is a Logbook store, else `undefined`. */
  get storeId(): string | undefined {
    return this.identity?.kind === 'store' ? this.identity.storeId : undefined
  }

  /** The schema version of the store as last checked (the current one for a store still to be created). */
  get version(): SchemaVersion {
    return this.identity?.kind === 'store' ? this.identity.version : LOGBOOK_SCHEMA_VERSION
  }

  /**
   * Validate the configured store without creating anything: file checks, then (file present) open, pragmas and the
   * identity check. `:memory:` opens at once.
   * @throws SessionPersistenceError `STORE_UNSAFE`, `STORE_FOREIGN`, `STORE_INCOMPATIBLE`, `STORE_IO`.
   */
  start(): void {
    if (this.path === ':memory:') {
      this.open()
      return
    }
    const { fileExists } = checkStorePath(this.path, this.options.checkPermissions)
    if (fileExists) this.open()
  }

  /** Write transactions (`write`, `migrate`) this connection has committed: each is one sync with `synchronous=FULL`. */
  get commits(): number {
    return this.committed
  }

  /** Whether a database is open (a file-backed store without its file has none until the first write). */
  get isOpen(): boolean {
    return this.db !== undefined
  }

  /**
   * Run `fn` in one deferred transaction (a consistent snapshot); `undefined` without calling it when there is no
   * database file or the database is still pristine. Never creates the file.
   * @throws SessionPersistenceError `STORE_IO` and the identity codes.
   */
  read<T>(fn: (stmt: (name: StatementName) => Statement) => T): T | undefined {
    if (this.db === undefined) {
      if (this.closed) throw this.closedError()
      const { fileExists } = checkStorePath(this.path, this.options.checkPermissions)
      if (!fileExists) return undefined
      this.open()
    }
    return this.transaction('begin-deferred', () => {
      this.checkSchemaVersion()
      if (this.identity?.kind !== 'store') return undefined
      return fn(this.stmt)
    })
  }

  /**
   * Run `fn` in one `BEGIN IMMEDIATE` transaction, creating the file (0600) and the schema first when needed;
   * rolled back on any error.
   * @throws SessionPersistenceError `STORE_IO` (busy after the timeout: retryable), the identity codes, or what `fn` throws.
   */
  write<T>(fn: (stmt: (name: StatementName) => Statement, now: number) => T): T {
    if (this.db === undefined) {
      if (this.closed) throw this.closedError()
      const { fileExists } = checkStorePath(this.path, this.options.checkPermissions)
      if (!fileExists) createStoreFile(this.path, this.options.synchronous === 'full')
      this.open()
    }
    const result = this.transaction('begin-immediate', () => {
      this.checkSchemaVersion()
      const now = Date.now()
      if (this.identity?.kind === 'pristine') {
        // Only `:memory:` starts pristine: nobody else can see it while its schema is made.
        this.identity = { kind: 'store', storeId: createSchema(this.db!, now), version: LOGBOOK_SCHEMA_VERSION }
        this.schemaVersion = this.stmt('select-schema-version').pluck().get() as number
      }
      return fn(this.stmt, now)
    })
    this.committed++
    return result
  }

  /** The connection's pragmas as SQLite reports them now (diagnostics and tests); `undefined` without a connection. */
  pragmas(): Readonly<Record<string, unknown>> | undefined {
    const db = this.db
    if (db === undefined) return undefined
    const names = ['journal_mode', 'synchronous', 'foreign_keys', 'trusted_schema', 'cache_size', 'mmap_size', 'busy_timeout', 'application_id', 'user_version', 'page_size']
    return Object.freeze(Object.fromEntries(names.map(name => [name, db.pragma(name, { simple: true })])))
  }

  /** Close the connection (WAL checkpointed by SQLite); later calls fail `STORE_IO`. Idempotent. */
  close(): void {
    this.closed = true
    this.statements.clear()
    const db = this.db
    this.db = undefined
    if (db?.open === true) db.close()
  }

  /**
   * Run `fn` in one `BEGIN IMMEDIATE` transaction on the raw database (a schema migration), then re-read the
   * identity so later statements follow the new version. @throws what `fn` throws (rolled back), `STORE_IO`.
   */
  migrate<T>(fn: (db: Database.Database, stmt: (name: StatementName) => Statement) => T): T {
    if (this.db === undefined) throw this.closedError()
    const result = this.transaction('begin-immediate', () => {
      this.checkSchemaVersion()
      return fn(this.db!, this.stmt)
    })
    this.committed++
    this.transaction('begin-deferred', () => this.checkSchemaVersion(true))
    return result
  }

  /** `VACUUM INTO` the new empty file `target` (outside any transaction): a consistent copy of the whole database. */
  vacuumInto(target: string): void {
    if (this.db === undefined) throw this.closedError()
    try {
      this.db.prepare(sql('vacuum-into')).run({ path: target })
    } catch (error) {
      throw mapStoreError(error, this.path)
    }
  }

  /**
   * The prepared statement `name` in the form the store's schema version needs (cached per connection by the name
   * asked for: the cache is cleared whenever the version may have changed, so the lookup builds no file name).
   */
  private readonly stmt = (name: StatementName): Statement => {
    let statement = this.statements.get(name)
    if (statement === undefined) {
      statement = this.db!.prepare(sql(versioned(name, this.version))) as Statement
      this.statements.set(name, statement)
    }
    return statement
  }

  private closedError(): SessionPersistenceError {
    return new SessionPersistenceError('STORE_IO', `store ${this.path} is closed`, { location: this.path })
  }

  /** Open the connection: an existing file only once `identifyFile` found a store of ours in it (02 §6, D). */
  private open(): void {
    let db: Database.Database | undefined
    try {
      const memory = this.path === ':memory:'
      if (!memory) identifyFile(this.path, this.options.busyTimeoutMs)
      db = new Database(this.path, { timeout: this.options.busyTimeoutMs, fileMustExist: !memory })
      applyPragmas(db, this.path, this.options)
      this.db = db
      this.transaction('begin-immediate', () => this.checkSchemaVersion(true))
    } catch (error) {
      this.db = undefined
      this.statements.clear()
      if (db?.open === true) db.close()
      throw mapStoreError(error, this.path)
    }
  }

  /** Re-run the identity check when `schema_version` moved since it was last seen (or when `force`). */
  private checkSchemaVersion(force = false): void {
    const version = this.stmt('select-schema-version').pluck().get() as number
    if (!force && version === this.schemaVersion) return
    const previous = this.identity
    const identity = checkIdentity(this.db!, this.path, this.path === ':memory:')
    if (previous?.kind === 'store' && (identity.kind !== 'store' || identity.storeId !== previous.storeId)) {
      throw new SessionPersistenceError('STORE_INCOMPATIBLE', `store ${this.path} was replaced while open`, {
        location: this.path,
      })
    }
    this.identity = identity
    this.schemaVersion = version
    this.statements.clear()
  }

  private transaction<T>(begin: 'begin-deferred' | 'begin-immediate', fn: () => T): T {
    const db = this.db!
    try {
      this.stmt(begin).run()
    } catch (error) {
      throw mapStoreError(error, this.path)
    }
    let result: T
    try {
      result = fn()
      this.stmt('commit').run()
    } catch (error) {
      const mapped = mapStoreError(error, this.path)
      if (!db.inTransaction) throw mapped
      try {
        this.stmt('rollback').run()
      } catch (rollbackError) {
        throw new SessionPersistenceError('STORE_IO', `store ${this.path}: rollback failed after ${(error as Error).message}`, {
          location: this.path,
          cause: new AggregateError([error, rollbackError], 'write and rollback failed'),
        })
      }
      throw mapped
    }
    return result
  }
}
