/**
 * The in-memory reference backend (spec 02 §1.5 `storeName`): not durable, no cross-process locks, records kept as
 * the shared codec's texts and decoded once into deep-frozen events (`eventState: 'shared-frozen'`). Same-named
 * instances in one process share one store, so a reload sees what the previous instance wrote.
 */
import { randomUUID } from 'node:crypto'
import { deepFreeze, type SessionHeader } from '@logbook/session'
import type {
  BackendListQuery,
  BackendListResult,
  CommitResult,
  EncodedRecord,
  ExpectedState,
  LockInfo,
  LockOwner,
  LockToken,
  PersistenceBackend,
  PhysicalScan,
  RecordResult,
  ScanRecord,
} from './backend.ts'
import { checkStoredHeader } from './classify.ts'
import { about, SessionPersistenceError } from './errors.ts'
import { pageOf } from './listing.ts'
import { isHolderDead, lockLostError, processLockedError } from './owners.ts'
import { checksumProblem, decodeRecordText, recordChecksum } from './record-codec.ts'
import type { ListProblem, MemorySessionPersistenceConfig, ProjectionCheckpoint, SessionSummary } from './types.ts'

/** One stored record: its text, its checksum and, once decoded, its frozen events. */
export interface MemoryRecord {
  text: string
  /** `recordChecksum(text)` as written; recomputed on every read. */
  crc: number
  /** Events the record covers, as written (kept like SQLite's seq columns when the text is damaged). */
  eventCount?: number
  /** Set only by the test damage kit: the record's write was cut short, like a JSONL fragment without newline. */
  torn?: true
  decoded?: RecordResult
}

/** One stored session of a memory store. */
export interface MemorySession {
  /** The stored header object (deep-frozen); tests may replace it to simulate damage. */
  header: unknown
  /** `recordChecksum` of the header's JSON text as written; recomputed on every read. */
  headerCrc: number
  incarnation: string
  records: MemoryRecord[]
  /** Events covered by the records (the stored cursor). */
  nextSeq: number
  counter: number
  checkpoint: ProjectionCheckpoint | undefined
}

/** One memory store: sessions and locks by id. */
export interface MemoryStore {
  readonly storeId: string
  readonly sessions: Map<string, MemorySession>
  readonly locks: Map<string, LockInfo>
}

const STORES_KEY = Symbol.for('logbook.persistence.memory-stores')

/** The process-wide named stores (shared across module copies). */
function namedStores(): Map<string, MemoryStore> {
  const global = globalThis as { [STORES_KEY]?: Map<string, MemoryStore> }
  return (global[STORES_KEY] ??= new Map())
}

const newStore = (): MemoryStore => ({ storeId: randomUUID(), sessions: new Map(), locks: new Map() })

/** The named store `name`, created on first use (tests use it to inspect or damage storage). */
export function memoryStore(name: string): MemoryStore {
  const stores = namedStores()
  let store = stores.get(name)
  if (store === undefined) stores.set(name, store = newStore())
  return store
}

/** Forget the named store `name` (test isolation). */
export function dropMemoryStore(name: string): void {
  namedStores().delete(name)
}

function decoded(record: MemoryRecord): RecordResult {
  if (record.decoded === undefined) {
    const result = checksumProblem(record.crc, recordChecksum(record.text)) ?? decodeRecordText(record.text)
    if (result.ok) for (const event of result.events) deepFreeze(event)
    record.decoded = result
  }
  return record.decoded
}

/** `{ headerDefect }` when the stored header object no longer matches its checksum, else `{}`. */
function headerDefectOf(session: MemorySession): { headerDefect?: string } {
  if (typeof session.header !== 'object' || session.header === null) return {}
  const problem = checksumProblem(session.headerCrc, recordChecksum(JSON.stringify(session.header)))
  return problem === undefined || problem.ok ? {} : { headerDefect: `header ${problem.reason}` }
}

const stored = (record: EncodedRecord): MemoryRecord => ({ text: record.text, crc: record.crc, eventCount: record.lastSeq - record.seq + 1 })

/** The memory implementation of the backend hooks; the marker is a record index. */
export class MemoryBackend implements PersistenceBackend<number, LockToken> {
  readonly name = 'memory'
  readonly capabilities = Object.freeze({ crossProcess: false, durable: false, locate: false })
  readonly eventState = 'shared-frozen' as const
  readonly store: MemoryStore

  constructor(config: Pick<MemorySessionPersistenceConfig, 'storeName'>) {
    this.store = config.storeName === undefined ? newStore() : memoryStore(config.storeName)
  }

  private revisionOf(session: MemorySession): string {
    return `memory:${this.store.storeId}:${session.incarnation}:${session.counter}`
  }

  private commit(session: MemorySession): CommitResult {
    session.counter += 1
    return { nextSeq: session.nextSeq, revision: this.revisionOf(session), physicalLength: session.records.length, incarnation: session.incarnation }
  }

  private verify(token: LockToken): void {
    const lock = this.store.locks.get(token.sessionId)
    if (lock?.holder?.ownerId !== token.owner.ownerId) throw lockLostError(token.sessionId, lock?.holder)
  }

  private expectState(id: string, session: MemorySession | undefined, expect: ExpectedState, what: string): MemorySession {
    if (session === undefined || this.revisionOf(session) !== expect.revision) {
      throw new SessionPersistenceError('SESSION_CONFLICT', `${about(id)}${what}: storage changed underneath`, { sessionId: id })
    }
    return session
  }

  async start(): Promise<void> {}

  async lock(id: string, owner: LockOwner): Promise<LockToken> {
    const existing = this.store.locks.get(id)
    if (existing !== undefined && !isHolderDead(existing.holder)) throw processLockedError(id, existing.holder)
    this.store.locks.set(id, { holder: owner })
    return { sessionId: id, owner }
  }

  async verifyLock(token: LockToken): Promise<void> {
    this.verify(token)
  }

  async unlock(token: LockToken): Promise<void> {
    if (this.store.locks.get(token.sessionId)?.holder?.ownerId === token.owner.ownerId) this.store.locks.delete(token.sessionId)
  }

  async readLock(id: string): Promise<LockInfo | undefined> {
    return this.store.locks.get(id)
  }

  async breakLock(id: string, ownerId: string | null): Promise<void> {
    const lock = this.store.locks.get(id)
    if (lock === undefined) return
    if ((lock.holder?.ownerId ?? null) !== ownerId) {
      throw new SessionPersistenceError('SESSION_CONFLICT', `${about(id)}the lock belongs to another owner`, {
        sessionId: id,
        details: { ownerId: lock.holder?.ownerId ?? null },
      })
    }
    this.store.locks.delete(id)
  }

  async exists(id: string): Promise<boolean> {
    return this.store.sessions.has(id)
  }

  async revision(id: string): Promise<string | undefined> {
    const session = this.store.sessions.get(id)
    return session === undefined ? undefined : this.revisionOf(session)
  }

  async scan(id: string): Promise<PhysicalScan<number> | undefined> {
    const session = this.store.sessions.get(id)
    if (session === undefined) return undefined
    const records: ScanRecord<number>[] = session.records.map((record, index) => ({
      marker: index,
      complete: record.torn !== true,
      result: decoded(record),
      line: index + 2,
      ...(record.eventCount === undefined ? {} : { eventCount: record.eventCount }),
    }))
    return {
      header: session.header,
      ...headerDefectOf(session),
      storeId: this.store.storeId,
      incarnation: session.incarnation,
      revision: this.revisionOf(session),
      physicalLength: session.records.length,
      startSeq: 0,
      records,
      checksums: true,
    }
  }

  async materialize(token: LockToken, header: SessionHeader, records: readonly EncodedRecord[]): Promise<CommitResult> {
    this.verify(token)
    const id = token.sessionId
    if (this.store.sessions.has(id)) {
      throw new SessionPersistenceError('SESSION_ALREADY_EXISTS', `${about(id)}a stored log already exists`, { sessionId: id })
    }
    const session: MemorySession = {
      header: deepFreeze(structuredClone(header)),
      headerCrc: recordChecksum(JSON.stringify(header)),
      incarnation: randomUUID(),
      records: records.map(stored),
      nextSeq: records.length === 0 ? 0 : records.at(-1)!.lastSeq + 1,
      counter: 0,
      checkpoint: undefined,
    }
    this.store.sessions.set(id, session)
    return this.commit(session)
  }

  async append(token: LockToken, expect: ExpectedState, records: readonly EncodedRecord[]): Promise<CommitResult> {
    this.verify(token)
    const id = token.sessionId
    const session = this.expectState(id, this.store.sessions.get(id), expect, 'append')
    if (session.nextSeq !== expect.nextSeq) {
      throw new SessionPersistenceError('SESSION_CONFLICT', `${about(id)}stored next seq is ${session.nextSeq}`, { sessionId: id })
    }
    for (const record of records) session.records.push(stored(record))
    if (records.length > 0) session.nextSeq = records.at(-1)!.lastSeq + 1
    return this.commit(session)
  }

  async cut(token: LockToken, marker: number, expect: ExpectedState): Promise<CommitResult> {
    this.verify(token)
    const id = token.sessionId
    const session = this.expectState(id, this.store.sessions.get(id), expect, 'repair is stale')
    session.records.length = marker
    session.nextSeq = expect.nextSeq
    if (session.checkpoint !== undefined && session.checkpoint.seq >= expect.nextSeq) session.checkpoint = undefined
    return this.commit(session)
  }

  async remove(token: LockToken, expectRevision: string): Promise<{ location?: string }> {
    this.verify(token)
    const id = token.sessionId
    const session = this.store.sessions.get(id)
    this.expectState(id, session, { nextSeq: session?.nextSeq ?? 0, revision: expectRevision }, 'delete')
    this.store.sessions.delete(id)
    this.store.locks.delete(id)
    return {}
  }

  async list(query: BackendListQuery): Promise<BackendListResult> {
    const summaries: SessionSummary[] = []
    const problems: ListProblem[] = []
    for (const [id, session] of this.store.sessions) {
      try {
        summaries.push(this.summary(id, session))
      } catch (error) {
        problems.push({ location: `memory:${this.store.storeId}/${id}`, sessionId: id, error: error as Error })
      }
    }
    return { ...pageOf(summaries, query), problems }
  }

  /**
   * The listing entry of one stored session: the last record that decodes gives `eventCount` and `updatedAt` (as a
   * JSONL listing reads its last complete line), so a torn tail is listed as stored, not reported as a problem.
   */
  private summary(id: string, session: MemorySession): SessionSummary {
    const scan = { header: session.header, ...headerDefectOf(session), location: undefined } as unknown as PhysicalScan<number>
    const header = checkStoredHeader(id, scan)
    let eventCount = 0
    let updatedAt = header.createdAt
    for (let r = session.records.length - 1; r >= 0; r--) {
      const result = decoded(session.records[r]!)
      const event = result.ok ? result.events.at(-1) : undefined
      if (event !== undefined && Number.isSafeInteger(event.seq) && Number.isSafeInteger(event.time)) {
        eventCount = event.seq + 1
        updatedAt = event.time
        break
      }
    }
    return { id, header, eventCount, updatedAt, revision: this.revisionOf(session) }
  }

  async locate(): Promise<string | undefined> {
    return undefined
  }

  async readCheckpoint(id: string): Promise<ProjectionCheckpoint | undefined> {
    const session = this.store.sessions.get(id)
    const checkpoint = session?.checkpoint
    return checkpoint !== undefined && checkpoint.seq < session!.nextSeq ? checkpoint : undefined
  }

  async writeCheckpoint(token: LockToken, id: string, checkpoint: ProjectionCheckpoint): Promise<void> {
    this.verify(token)
    const session = this.store.sessions.get(id)
    if (session === undefined) {
      throw new SessionPersistenceError('CHECKPOINT_AHEAD', `${about(id)}nothing is stored yet`, { sessionId: id })
    }
    session.checkpoint = checkpoint
  }

  async close(): Promise<void> {}
}
