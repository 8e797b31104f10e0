/**
 * `PostgresBackend`: the `PersistenceBackend` hooks (02 §1.4) over one node-postgres pool (02 §6b). Every write is
 * one transaction that first checks the caller's lease token (the fence); reads run in one `REPEATABLE READ`
 * snapshot. Cut markers are seqs (the end of the valid prefix). Leases are renewed in the background while held.
 */
import { randomUUID } from 'node:crypto'
import type { SessionHeader } from '@logbook/session'
import {
  ListingMemo,
  RevisionRowCounts,
  SessionPersistenceError,
  type BackendListQuery,
  type BackendListResult,
  type CommitResult,
  type EncodedRecord,
  type ExpectedState,
  type LockInfo,
  type LockOwner,
  type PersistenceBackend,
  type PersistenceCapabilities,
  type PhysicalScan,
  type ProjectionCheckpoint,
} from '@logbook/session-persistence'
import { fencedAppend, insertRows, rowCollision, type Committed } from './append.ts'
import { readCheckpointRow, writeCheckpointRow } from './checkpoints.ts'
import { cutRows } from './cut.ts'
import { isConnectionFault } from './faults.ts'
import { breakLease, dropLease, lostLeaseError, readLease, requireLease, takeLease, type LeaseToken } from './lease.ts'
import { listSessions } from './list.ts'
import { LeaseRenewals } from './renewal.ts'
import { scanSession, type ScanState } from './scan.ts'
import { prepareSchema } from './schema.ts'
import { conflict, parseRevision, revisionToken, sessionValues, type SessionRow } from './session-row.ts'
import { PgStore, type StoreOptions } from './store.ts'
import type { CommitState } from './types.ts'

const throwIfAborted = (signal: AbortSignal): void => {
  if (signal.aborted) throw signal.reason
}

/** Everything the backend needs from the validated plugin config. */
export interface BackendOptions extends StoreOptions {
  readonly leaseDurationMs: number
}

/** The PostgreSQL backend of 02 §6b; one instance per plugin instance, one pool per instance. */
export class PostgresBackend implements PersistenceBackend<number, LeaseToken> {
  readonly name = 'postgres'
  /** Durable and shared across processes and hosts; not locatable as a path. */
  readonly capabilities: PersistenceCapabilities = Object.freeze({ crossProcess: true, durable: true, locate: false })
  /** Scans return fresh `JSON.parse` results nobody else references. */
  readonly eventState = 'detached' as const
  /** Event rows read by this instance (observable for the seek-read test). */
  rowsRead = 0
  readonly store: PgStore
  private storeId = ''
  private readonly leaseDurationMs: number
  private readonly renewals: LeaseRenewals
  private readonly rowCounts = new RevisionRowCounts()
  /** Headers the listing checked, reused while their stored values are unchanged (02 §6b "List"). */
  private readonly listed = new ListingMemo<SessionHeader>()

  constructor(options: BackendOptions) {
    this.store = new PgStore(options)
    this.leaseDurationMs = options.leaseDurationMs
    this.renewals = new LeaseRenewals(this.store, options.leaseDurationMs)
  }

  /** The store named without its password (messages, listing problems). */
  get label(): string {
    return this.store.label
  }

  async start(signal: AbortSignal): Promise<void> {
    throwIfAborted(signal)
    this.storeId = await prepareSchema(this.store)
  }

  async lock(id: string, owner: LockOwner, signal: AbortSignal): Promise<LeaseToken> {
    throwIfAborted(signal)
    const token = await takeLease(this.store, id, owner, this.leaseDurationMs)
    this.renewals.start(token)
    return token
  }

  async verifyLock(token: LeaseToken, signal: AbortSignal): Promise<void> {
    throwIfAborted(signal)
    await this.store.transaction(client => requireLease(client, this.store, token))
  }

  async unlock(token: LeaseToken, _signal: AbortSignal): Promise<void> {
    this.renewals.stop(token)
    await dropLease(this.store, token)
  }

  async readLock(id: string, signal: AbortSignal): Promise<LockInfo | undefined> {
    throwIfAborted(signal)
    const holder = await readLease(this.store, id)
    return holder === undefined ? undefined : { holder }
  }

  async breakLock(id: string, ownerId: string | null, signal: AbortSignal): Promise<void> {
    throwIfAborted(signal)
    await breakLease(this.store, id, ownerId)
  }

  async exists(id: string, signal: AbortSignal): Promise<boolean> {
    throwIfAborted(signal)
    return (await this.store.query(this.store.sql.sessionExists, [id])).length > 0
  }

  async scan(id: string, options: { readonly fromSeq?: number }, signal: AbortSignal): Promise<PhysicalScan<number> | undefined> {
    throwIfAborted(signal)
    return scanSession(this.store, id, options.fromSeq, this.scanState())
  }

  async revision(id: string, signal: AbortSignal): Promise<string | undefined> {
    throwIfAborted(signal)
    const [row] = await this.store.query<SessionRow>(this.store.sql.selectSession, [id])
    return row === undefined ? undefined : revisionToken(this.storeId, row.incarnation, row.revision)
  }

  async materialize(token: LeaseToken, header: SessionHeader, records: readonly EncodedRecord[], signal: AbortSignal): Promise<CommitResult> {
    throwIfAborted(signal)
    const id = token.sessionId
    if (records.length > 0 && records[0]!.seq !== 0) throw conflict(id, 'stored next seq is 0', { expected: 0, actual: records[0]!.seq })
    const incarnation = randomUUID()
    const last = records[records.length - 1]
    const nextSeq = last === undefined ? 0 : last.lastSeq + 1
    try {
      const revision = await this.store.transaction(async (client) => {
        await requireLease(client, this.store, token)
        const inserted = await client.query(this.store.sql.insertSession, sessionValues(header, incarnation))
        if (inserted.rowCount !== 1) {
          throw new SessionPersistenceError('SESSION_ALREADY_EXISTS', `session "${id}" is already stored`, { sessionId: id })
        }
        if (last === undefined) return 0
        await insertRows(client, this.store, id, records).catch((error: unknown) => {
          throw rowCollision(id, error, records) ?? error
        })
        return (await client.query<{ revision: number }>(this.store.sql.moveCursor, [id, nextSeq, last.lastTime])).rows[0]!.revision
      })
      return this.committed(id, { nextSeq, revision, incarnation }, records.length, 0)
    } catch (error) {
      // A connection lost at COMMIT: the session row says whether this very materialisation landed.
      if (!isConnectionFault((error as { cause?: unknown }).cause)) throw error
      const [row] = await this.store.query<SessionRow>(this.store.sql.selectSession, [id])
      if (row?.incarnation !== incarnation || row.next_seq !== nextSeq) throw error
      return this.committed(id, { nextSeq, revision: row.revision, incarnation }, records.length, 0)
    }
  }

  async append(token: LeaseToken, expect: ExpectedState, records: readonly EncodedRecord[], signal: AbortSignal): Promise<CommitResult> {
    throwIfAborted(signal)
    const id = token.sessionId
    if (records.length === 0) throw conflict(id, 'an append needs at least one record')
    const rows = this.rowCounts.at(id, expect.revision)
    const committed = await fencedAppend(this.store, this.storeId, token, expect, records)
    const before = rows ?? await this.countRows(id) - records.length
    return this.committed(id, committed, records.length, before)
  }

  async cut(token: LeaseToken, marker: number, expect: ExpectedState, signal: AbortSignal): Promise<CommitResult> {
    throwIfAborted(signal)
    const id = token.sessionId
    const expected = parseRevision(this.storeId, expect.revision)
    if (expected === undefined) throw conflict(id, 'storage changed underneath (revision differs)')
    const { revision, rows, incarnation } = await this.store.transaction(async (client) => {
      await requireLease(client, this.store, token)
      return cutRows(client, this.store, id, marker, expected)
    })
    const result = { nextSeq: marker, revision: revisionToken(this.storeId, incarnation, revision), physicalLength: rows }
    this.rowCounts.set(id, result.revision, rows)
    return result
  }

  async remove(token: LeaseToken, expectRevision: string, signal: AbortSignal): Promise<{ readonly location?: string }> {
    throwIfAborted(signal)
    const id = token.sessionId
    await this.store.transaction(async (client) => {
      await requireLease(client, this.store, token)
      const row = (await client.query<SessionRow>(this.store.sql.lockSessionRow, [id])).rows[0]
      if (row === undefined || revisionToken(this.storeId, row.incarnation, row.revision) !== expectRevision) {
        throw conflict(id, 'the revision to delete is no longer current')
      }
      // The session row is locked above, so no append can add rows between these two statements.
      await client.query(this.store.sql.deleteSessionEvents, [id])
      await client.query(this.store.sql.deleteSession, [id])
      await client.query(this.store.sql.deleteLease, [id, token.lease])
    })
    this.renewals.stop(token)
    this.rowCounts.delete(id)
    return {}
  }

  async list(query: BackendListQuery, signal: AbortSignal): Promise<BackendListResult> {
    throwIfAborted(signal)
    return listSessions(this.store, query, this.storeId, this.listed)
  }

  async locate(_id: string, signal: AbortSignal): Promise<string | undefined> {
    throwIfAborted(signal)
    return undefined
  }

  async readCheckpoint(id: string, signal: AbortSignal): Promise<ProjectionCheckpoint | undefined> {
    throwIfAborted(signal)
    return readCheckpointRow(this.store, id)
  }

  async writeCheckpoint(token: LeaseToken, id: string, checkpoint: ProjectionCheckpoint, signal: AbortSignal): Promise<void> {
    throwIfAborted(signal)
    await this.store.transaction(async (client) => {
      await requireLease(client, this.store, token)
      await writeCheckpointRow(client, this.store, id, checkpoint)
    })
  }

  async close(): Promise<void> {
    this.renewals.stopAll()
    this.rowCounts.clear()
    await this.store.end()
  }

  /** Whether the lease of `token` is still being renewed (tests). */
  isRenewing(token: LeaseToken): boolean {
    return this.renewals.has(token)
  }

  /**
   * The stored `next_seq`, `revision` column and lease owner of `id` in one query, or `undefined` when the session is
   * not stored (what the invariant companion checks after each commit).
   * @throws SessionPersistenceError `STORE_IO`.
   */
  async commitState(id: string): Promise<CommitState | undefined> {
    const [row] = await this.store.query<{ next_seq: number; revision: number; owner_id: string | null }>(this.store.sql.commitState, [id])
    return row === undefined ? undefined : { nextSeq: row.next_seq, revision: row.revision, ownerId: row.owner_id }
  }

  /** `SESSION_LOCKED` `lost` naming the current holder (used when a renewal found the lease gone). */
  lostError(token: LeaseToken): Promise<SessionPersistenceError> {
    return lostLeaseError(this.store, token)
  }

  private scanState(): ScanState {
    return {
      storeId: this.storeId,
      rowCounts: this.rowCounts,
      countRead: (n: number) => {
        this.rowsRead += n
      },
    }
  }

  private async countRows(id: string): Promise<number> {
    return (await this.store.query<{ n: number }>(this.store.sql.countEvents, [id]))[0]!.n
  }

  /** The commit result after `added` rows on top of `before`, caching the row count of the new revision. */
  private committed(id: string, committed: Committed, added: number, before: number): CommitResult {
    const revision = revisionToken(this.storeId, committed.incarnation, committed.revision)
    const physicalLength = before + added
    this.rowCounts.set(id, revision, physicalLength)
    return { nextSeq: committed.nextSeq, revision, physicalLength, incarnation: committed.incarnation }
  }
}
