/**
 * `SqliteBackend`: the `PersistenceBackend` hooks (02 §1.4) over one better-sqlite3 connection (02 §6). Every hook
 * is one transaction: reads deferred (a consistent snapshot), writes `BEGIN IMMEDIATE` with the lease re-checked
 * first, so two writers' records never interleave; the `append` and `materialize` batches of sessions flushing
 * together share one (group commit, group-commit.ts). Cut markers are seqs (the end of the valid prefix).
 */

import { randomUUID } from 'node:crypto'
import type { SessionHeader } from '@logbook/session'
import {
  ListingMemo,
  lockLostError,
  RevisionRowCounts,
  SessionPersistenceError,
  type BackendListQuery,
  type BackendListResult,
  type CommitResult,
  type EncodedRecord,
  type ExpectedState,
  type LockInfo,
  type LockOwner,
  type LockToken,
  type MigrationResult,
  type PersistenceBackend,
  type PersistenceCapabilities,
  type PhysicalScan,
  type ProjectionCheckpoint,
  type StoreLocation,
} from '@logbook/session-persistence'
import { StoreConnection, type ConnectionOptions, type Statement } from './connection.ts'
import { fillRowParams, rowParams, type RowParams } from './row-params.ts'
import { CommitGroup } from './group-commit.ts'
import { breakLease, dropLease, readLease, requireLease, requireLeaseRow, takeLease } from './lease.ts'
import { keepCopy, migrateStore } from './keep-original.ts'
import { listSessions } from './listing.ts'
import { readCheckpointRow, writeCheckpointRow } from './projection-checkpoints.ts'
import { cutRows, scanSession, type ScanState } from './scan.ts'
import { readCommitState, revisionToken, sessionParams, type SessionRow } from './session-row.ts'
import type { StatementName } from './sql.ts'

type Stmt = (name: StatementName) => Statement

/** The session columns a write checks and advances from. */
type SessionCursor = Pick<SessionRow, 'incarnation' | 'next_seq' | 'updated_at' | 'revision'>

/** A row of `select-append-state.sql`: the lease of an id and its session's cursor (all `null` when not stored). */
interface AppendState {
  readonly owner_id: string
  readonly pid: number
  readonly host: string
  readonly process_start: string | null
  readonly acquired_at: number
  readonly incarnation: string | null
  readonly next_seq: number | null
  readonly updated_at: number | null
  readonly revision: number | null
}

const throwIfAborted = (signal: AbortSignal): void => {
  if (signal.aborted) throw signal.reason
}

const conflict = (sessionId: string, message: string, details?: Record<string, unknown>): SessionPersistenceError =>
  new SessionPersistenceError('SESSION_CONFLICT', `session "${sessionId}": ${message}`, {
    sessionId,
    ...(details === undefined ? {} : { details }),
  })

/** An event row already stored at the seq: the primary key (schema versions 1–2) or the unique index (3) refused it. */
const isRowConflict = (error: unknown): boolean => {
  const code = (error as { code?: unknown } | null)?.code
  return code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === 'SQLITE_CONSTRAINT_UNIQUE'
}

/** The SQLite backend of 02 §6; one instance per plugin instance, one connection per instance. */
export class SqliteBackend implements PersistenceBackend<number, LockToken> {
  readonly name = 'sqlite'
  readonly capabilities: PersistenceCapabilities
  /** Scans return fresh `JSON.parse` results nobody else references. */
  readonly eventState = 'detached' as const
  /** Rows read from `logbook_events` by this instance (observable for the seek-read test, P-089). */
  rowsRead = 0
  private readonly connection: StoreConnection
  /** `append` and `materialize` batches of every session, written one group transaction at a time. */
  private readonly group: CommitGroup
  /** Row count per id at a revision, so a commit reports `physicalLength` without counting rows. */
  private readonly rowCounts = new RevisionRowCounts()
  /** Headers the listing checked, reused while their stored values are unchanged (02 §6 "List"). */
  private readonly listed = new ListingMemo<SessionHeader>()

  constructor(options: ConnectionOptions) {
    this.connection = new StoreConnection(options)
    this.group = new CommitGroup(this.connection)
    const onDisk = options.path !== ':memory:'
    this.capabilities = Object.freeze({ crossProcess: onDisk, durable: onDisk, locate: onDisk })
  }

  /** Where the database lives (`undefined` for `:memory:`). */
  get location(): string | undefined {
    return this.connection.path === ':memory:' ? undefined : this.connection.path
  }

  /** The database file (02 §1.1 `storeLocation`); none for `:memory:`. */
  get storeLocation(): StoreLocation | undefined {
    const path = this.location
    return path === undefined ? undefined : { kind: 'file', path }
  }

  async start(signal: AbortSignal): Promise<void> {
    throwIfAborted(signal)
    this.connection.start()
  }

  async lock(id: string, owner: LockOwner, signal: AbortSignal): Promise<LockToken> {
    throwIfAborted(signal)
    this.connection.write(stmt => takeLease(stmt, id, owner, this.location))
    return { sessionId: id, owner }
  }

  async verifyLock(token: LockToken, signal: AbortSignal): Promise<void> {
    throwIfAborted(signal)
    const held = this.connection.read(stmt => {
      requireLease(stmt, token, this.location)
      return true
    })
    if (held !== true) throw lockLostError(token.sessionId, undefined, this.location)
  }

  async unlock(token: LockToken, _signal: AbortSignal): Promise<void> {
    if (this.connection.read(() => true) === undefined) return // no store, so no lease
    this.connection.write(stmt => dropLease(stmt, token.sessionId, token.owner.ownerId))
  }

  async readLock(id: string, signal: AbortSignal): Promise<LockInfo | undefined> {
    throwIfAborted(signal)
    const holder = this.connection.read(stmt => readLease(stmt, id))
    return holder === undefined ? undefined : { holder }
  }

  async breakLock(id: string, ownerId: string | null, signal: AbortSignal): Promise<void> {
    throwIfAborted(signal)
    if (this.connection.read(stmt => readLease(stmt, id)) === undefined) return
    this.connection.write(stmt => breakLease(stmt, id, ownerId, this.location))
  }

  async exists(id: string, signal: AbortSignal): Promise<boolean> {
    throwIfAborted(signal)
    return this.connection.read(stmt => stmt('select-session').get({ id }) !== undefined) === true
  }

  async scan(id: string, options: { readonly fromSeq?: number }, signal: AbortSignal): Promise<PhysicalScan<number> | undefined> {
    throwIfAborted(signal)
    return this.connection.read(stmt => scanSession(stmt, id, options.fromSeq, this.scanState())) ?? undefined
  }

  async revision(id: string, signal: AbortSignal): Promise<string | undefined> {
    throwIfAborted(signal)
    const row = this.connection.read(stmt => stmt('select-session').get({ id }) as SessionRow | undefined)
    return row === undefined ? undefined : revisionToken(this.storeId(), row.incarnation, row.revision)
  }

  async materialize(token: LockToken, header: SessionHeader, records: readonly EncodedRecord[], signal: AbortSignal): Promise<CommitResult> {
    throwIfAborted(signal)
    const id = token.sessionId
    return this.committed(id, await this.group.enqueue(stmt => {
      requireLease(stmt, token, this.location)
      if (stmt('select-session').get({ id }) !== undefined) {
        throw new SessionPersistenceError('SESSION_ALREADY_EXISTS', `session "${id}" is already stored`, {
          sessionId: id,
          ...this.where(),
        })
      }
      if (records.length > 0 && records[0]!.seq !== 0) throw conflict(id, 'stored next seq is 0', { expected: 0, actual: records[0]!.seq })
      const incarnation = randomUUID()
      stmt('insert-session').run(sessionParams(header, incarnation))
      return this.commitRecords(stmt, id, { incarnation, revision: 0, rows: 0, nextSeq: 0, updatedAt: header.createdAt }, records)
    }))
  }

  async append(token: LockToken, expect: ExpectedState, records: readonly EncodedRecord[], signal: AbortSignal): Promise<CommitResult> {
    throwIfAborted(signal)
    const id = token.sessionId
    return this.committed(id, await this.group.enqueue(stmt => {
      // One read for the lease check and the session's cursor (the lease is still checked first).
      const state = stmt('select-append-state').get({ sessionId: id }) as AppendState | undefined
      requireLeaseRow(state, token, this.location)
      const row = this.checkedRow(id, state!.incarnation === null ? undefined : state as SessionCursor, expect)
      const first = records[0]?.seq ?? expect.nextSeq
      if (row.next_seq !== expect.nextSeq || first !== row.next_seq) {
        throw conflict(id, `stored next seq is ${row.next_seq}`, { expected: row.next_seq, actual: first })
      }
      if (revisionToken(this.storeId(), row.incarnation, row.revision) !== expect.revision) {
        throw conflict(id, 'storage changed underneath (revision differs)')
      }
      const rows = this.rowCounts.at(id, expect.revision) ?? this.countRows(stmt, id)
      return this.commitRecords(stmt, id, { incarnation: row.incarnation, revision: row.revision, rows, nextSeq: row.next_seq, updatedAt: row.updated_at }, records)
    }))
  }

  async cut(token: LockToken, marker: number, expect: ExpectedState, signal: AbortSignal): Promise<CommitResult> {
    throwIfAborted(signal)
    const id = token.sessionId
    return this.connection.write(stmt => {
      requireLease(stmt, token, this.location)
      const row = this.sessionRowFor(stmt, id, expect)
      if (revisionToken(this.storeId(), row.incarnation, row.revision) !== expect.revision) {
        throw conflict(id, 'storage changed underneath (revision differs)')
      }
      const updatedAt = cutRows(stmt, row, marker)
      stmt('update-session-cursor').run({ id, nextSeq: marker, updatedAt })
      const revision = revisionToken(this.storeId(), row.incarnation, row.revision + 1)
      const rows = this.countRows(stmt, id)
      this.rowCounts.set(id, revision, rows)
      return { nextSeq: marker, revision, physicalLength: rows }
    })
  }

  async backup(token: LockToken, signal: AbortSignal): Promise<string> {
    throwIfAborted(signal)
    await this.verifyLock(token, signal)
    return keepCopy(this.connection, 'bak')
  }

  async migrate(token: LockToken, verify: (id: string, scan: PhysicalScan<number>) => void, signal: AbortSignal): Promise<MigrationResult> {
    throwIfAborted(signal)
    await this.verifyLock(token, signal)
    const { sessions, original } = await migrateStore(this.connection, () => this.scanState(), token.owner.ownerId, verify)
    this.rowCounts.clear()
    return { sessions, original, scope: 'store' }
  }

  async remove(token: LockToken, expectRevision: string, signal: AbortSignal): Promise<{ readonly location?: string }> {
    throwIfAborted(signal)
    const id = token.sessionId
    this.connection.write(stmt => {
      requireLease(stmt, token, this.location)
      const row = stmt('select-session').get({ id }) as SessionRow | undefined
      if (row === undefined || revisionToken(this.storeId(), row.incarnation, row.revision) !== expectRevision) {
        throw conflict(id, 'the revision to delete is no longer current')
      }
      stmt('delete-session').run({ id })
      dropLease(stmt, id, token.owner.ownerId)
    })
    this.rowCounts.delete(id)
    return this.where()
  }

  async list(query: BackendListQuery, signal: AbortSignal): Promise<BackendListResult> {
    throwIfAborted(signal)
    return this.connection.read(stmt => listSessions(stmt, query, this.storeId(), this.location, this.listed))
      ?? { items: [], hasMore: false, problems: [] }
  }

  async locate(id: string, signal: AbortSignal): Promise<string | undefined> {
    throwIfAborted(signal)
    if (this.location === undefined) return undefined
    return (await this.exists(id, signal)) ? this.location : undefined
  }

  async readCheckpoint(id: string, signal: AbortSignal): Promise<ProjectionCheckpoint | undefined> {
    throwIfAborted(signal)
    return this.connection.read(stmt => readCheckpointRow(stmt, id))
  }

  async writeCheckpoint(token: LockToken, id: string, checkpoint: ProjectionCheckpoint, signal: AbortSignal): Promise<void> {
    throwIfAborted(signal)
    this.connection.write(stmt => {
      requireLease(stmt, token, this.location)
      writeCheckpointRow(stmt, id, checkpoint)
    })
  }

  async close(): Promise<void> {
    this.group.drain()
    this.connection.close()
    this.rowCounts.clear()
  }

  /**
   * The session row, its `next_seq`, `revision` and the lease owner in one read (the SQLite invariant companion's
   * one query, 02 §8); `undefined` when the session is not stored.
   */
  commitState(id: string): { readonly nextSeq: number; readonly revision: number; readonly ownerId: string | null } | undefined {
    return this.connection.read(stmt => readCommitState(stmt, id)) ?? undefined
  }

  /** Write transactions this instance has committed (a group of batches is one); observable for tests and `pnpm bench`. */
  get commits(): number {
    return this.connection.commits
  }

  /** The connection's pragmas as SQLite reports them (02 §6 "Pragmas"); `undefined` before the database exists. */
  pragmas(): Readonly<Record<string, unknown>> | undefined {
    return this.connection.pragmas()
  }

  private where(): { location?: string } {
    return this.location === undefined ? {} : { location: this.location }
  }

  private storeId(): string {
    return this.connection.storeId ?? ''
  }

  private scanState(): ScanState {
    return {
      storeId: this.storeId(),
      schemaVersion: this.connection.version,
      location: this.location,
      rowCounts: this.rowCounts,
      countRead: (n: number) => {
        this.rowsRead += n
      },
    }
  }

  /** The stored row of `id` for a write expecting `expect`: present with the expected incarnation. */
  private sessionRowFor(stmt: Stmt, id: string, expect: ExpectedState): SessionRow {
    return this.checkedRow(id, stmt('select-session').get({ id }) as SessionRow | undefined, expect)
  }

  /** `row` (the stored cursor of `id`, or `undefined`) when present with the incarnation `expect` names. */
  private checkedRow<R extends SessionCursor>(id: string, row: R | undefined, expect: ExpectedState): R {
    if (row === undefined) throw conflict(id, 'the session was deleted underneath')
    if (!expect.revision.startsWith(`sqlite:${this.storeId()}:${row.incarnation}:`)) {
      throw conflict(id, 'the session was deleted and re-created underneath (incarnation differs)')
    }
    return row
  }

  private countRows(stmt: Stmt, id: string): number {
    return (stmt('count-events').get({ sessionId: id }) as { n: number }).n
  }

  /** Insert `records` after the stored state `before` and advance the cursor; returns the commit result. */
  private commitRecords(
    stmt: Stmt, id: string,
    before: { readonly incarnation: string; readonly revision: number; readonly rows: number; readonly nextSeq: number; readonly updatedAt: number },
    records: readonly EncodedRecord[],
  ): CommitResult {
    const insert = stmt('insert-event')
    let nextSeq = before.nextSeq
    let updatedAt = before.updatedAt
    let params: RowParams | undefined
    for (const record of records) {
      try {
        insert.run(params === undefined ? (params = rowParams(id, record)) : fillRowParams(params, record))
      } catch (error) {
        if (isRowConflict(error)) throw conflict(id, `a row is already stored at seq ${record.seq}`, { actual: record.seq })
        throw error
      }
      nextSeq = record.lastSeq + 1
      updatedAt = record.lastTime
    }
    stmt('update-session-cursor').run({ id, nextSeq, updatedAt })
    const revision = revisionToken(this.storeId(), before.incarnation, before.revision + 1)
    return { nextSeq, revision, physicalLength: before.rows + records.length }
  }

  /** Remember the row count of a committed batch's revision (only once its group committed), and return it. */
  private committed(id: string, result: CommitResult): CommitResult {
    this.rowCounts.set(id, result.revision, result.physicalLength)
    return result
  }
}
