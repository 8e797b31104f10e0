/**
 * `JsonlBackend`: the `PersistenceBackend` hooks (02 §1.4) over one JSONL store root (02 §5). Markers are byte
 * offsets; tokens carry the lock path and the writer's descriptor and last observed state.
 */
import { closeSync } from 'node:fs'
import type { SessionHeader } from '@logbook/session'
import type {
  BackendListQuery,
  BackendListResult,
  CommitResult,
  EncodedRecord,
  ExpectedState,
  LockInfo,
  LockOwner,
  MigrationResult,
  PersistenceBackend,
  PersistenceCapabilities,
  PhysicalScan,
  ProjectionCheckpoint,
  StoreLocation,
} from '@logbook/session-persistence'
import { sessionNotFound } from '@logbook/session-persistence'
import { removeSession } from './delete.ts'
import { toStoreError } from './errors.ts'
import type { Durability } from './io.ts'
import { backupFile, migrateFile } from './keep-original.ts'
import { Lister } from './listing.ts'
import { readCheckpointFile, writeCheckpointFile } from './projection-checkpoint.ts'
import { revisionAt, scanFile } from './scan.ts'
import { breakSessionLock, dropHeldLock, lockSession, readSessionLock, unlockSession, verifySessionLock } from './session-lock.ts'
import { JsonlStore, type SessionLocation } from './store.ts'
import type { JsonlLockToken } from './types.ts'
import { appendRecords, cutAt, materializeSession, removeStaleTemps } from './writer.ts'

const CAPABILITIES: PersistenceCapabilities = Object.freeze({ crossProcess: true, durable: true, locate: true })

/** The JSONL storage hooks for the store at an absolute `root`. */
export class JsonlBackend implements PersistenceBackend<number, JsonlLockToken> {
  readonly name = 'jsonl'
  readonly capabilities = CAPABILITIES
  /** Scans hand out fresh `JSON.parse` results that nobody else references. */
  readonly eventState = 'detached'
  readonly store: JsonlStore
  readonly #lister: Lister
  readonly #tokens = new Set<JsonlLockToken>()

  constructor(root: string, durability: Durability) {
    this.store = new JsonlStore(root, durability)
    this.#lister = new Lister(this.store)
  }

  /** The absolute store root. */
  get root(): string {
    return this.store.layout.root
  }

  /** The store root, as a folder (02 §1.1 `storeLocation`). */
  get storeLocation(): StoreLocation {
    return { kind: 'directory', path: this.root }
  }

  async start(signal: AbortSignal): Promise<void> {
    signal.throwIfAborted()
    try {
      await this.store.check()
    } catch (error) {
      throw toStoreError(error, undefined, `checking the store at ${this.root}`, this.root)
    }
  }

  async lock(id: string, owner: LockOwner, signal: AbortSignal): Promise<JsonlLockToken> {
    signal.throwIfAborted()
    const token = await lockSession(this.store, id, owner)
    this.#tokens.add(token)
    return token
  }

  async verifyLock(token: JsonlLockToken, signal: AbortSignal): Promise<void> {
    signal.throwIfAborted()
    await verifySessionLock(token)
  }

  async unlock(token: JsonlLockToken, _signal: AbortSignal): Promise<void> {
    this.#tokens.delete(token)
    await unlockSession(token)
  }

  async readLock(id: string, signal: AbortSignal): Promise<LockInfo | undefined> {
    signal.throwIfAborted()
    return readSessionLock(this.store, id)
  }

  async breakLock(id: string, ownerId: string | null, signal: AbortSignal): Promise<void> {
    signal.throwIfAborted()
    await breakSessionLock(this.store, id, ownerId)
  }

  async exists(id: string, signal: AbortSignal): Promise<boolean> {
    signal.throwIfAborted()
    try {
      return (await this.store.find(id)) !== undefined
    } catch (error) {
      throw toStoreError(error, id, 'looking up the session')
    }
  }

  async scan(id: string, _options: { readonly fromSeq?: number }, signal: AbortSignal): Promise<PhysicalScan<number> | undefined> {
    signal.throwIfAborted()
    return this.readSession(id, location => scanFile(this.store, location))
  }

  async revision(id: string, signal: AbortSignal): Promise<string | undefined> {
    signal.throwIfAborted()
    return this.readSession(id, location => revisionAt(this.store, location))
  }

  /** `read` of `id`'s file, or undefined when it is not stored; a failure is `STORE_IO` naming the file. */
  private async readSession<R>(id: string, read: (location: SessionLocation) => Promise<R | undefined>): Promise<R | undefined> {
    let file: string | undefined
    try {
      const location = await this.store.find(id)
      if (location === undefined) return undefined
      file = location.file
      return await read(location)
    } catch (error) {
      throw toStoreError(error, id, 'reading the session', file)
    }
  }

  async materialize(token: JsonlLockToken, header: SessionHeader, records: readonly EncodedRecord[], signal: AbortSignal): Promise<CommitResult> {
    signal.throwIfAborted()
    return materializeSession(this.store, token, header, records)
  }

  append(token: JsonlLockToken, expect: ExpectedState, records: readonly EncodedRecord[], signal: AbortSignal): Promise<CommitResult> {
    // Not `async`: the append path's one promise is the sync's (appendRecords turns throws into rejections).
    if (signal.aborted) return Promise.reject(signal.reason)
    return appendRecords(this.store, token, expect, records)
  }

  async cut(token: JsonlLockToken, marker: number, expect: ExpectedState, signal: AbortSignal): Promise<CommitResult> {
    signal.throwIfAborted()
    return cutAt(this.store, token, marker, expect)
  }

  async backup(token: JsonlLockToken, signal: AbortSignal): Promise<string> {
    signal.throwIfAborted()
    await verifySessionLock(token)
    try {
      return await backupFile(await this.locationOf(token), this.store.durability)
    } catch (error) {
      throw toStoreError(error, token.sessionId, 'copying the session file before the repair')
    }
  }

  async migrate(token: JsonlLockToken, _verify: unknown, signal: AbortSignal): Promise<MigrationResult> {
    signal.throwIfAborted()
    await verifySessionLock(token)
    try {
      const original = await migrateFile(await this.locationOf(token), token.owner.ownerId, this.store.durability)
      // The descriptor and the state the writer remembered belong to the original file.
      const { writer } = token
      if (writer.fd !== undefined) closeSync(writer.fd)
      Object.assign(writer, { fd: undefined, state: undefined, committed: undefined, framing: undefined })
      return { sessions: [token.sessionId], original, scope: 'session' }
    } catch (error) {
      throw toStoreError(error, token.sessionId, 'migrating the session file')
    }
  }

  async remove(token: JsonlLockToken, expectRevision: string, signal: AbortSignal): Promise<{ readonly location?: string }> {
    signal.throwIfAborted()
    return removeSession(this.store, token, expectRevision)
  }

  async removeStaleTemps(token: JsonlLockToken, signal: AbortSignal): Promise<void> {
    signal.throwIfAborted()
    try {
      await removeStaleTemps(this.store, token)
    } catch (error) {
      throw toStoreError(error, token.sessionId, 'removing stale temp files')
    }
  }

  async list(query: BackendListQuery, signal: AbortSignal): Promise<BackendListResult> {
    signal.throwIfAborted()
    try {
      return await this.#lister.list(query)
    } catch (error) {
      throw toStoreError(error, undefined, `listing ${this.root}`, this.root)
    }
  }

  async locate(id: string, signal: AbortSignal): Promise<string | undefined> {
    signal.throwIfAborted()
    try {
      return (await this.store.findAll(id))[0]?.file
    } catch (error) {
      throw toStoreError(error, id, 'looking up the session')
    }
  }

  async readCheckpoint(id: string, signal: AbortSignal): Promise<ProjectionCheckpoint | undefined> {
    signal.throwIfAborted()
    try {
      const location = await this.store.find(id)
      return location === undefined ? undefined : await readCheckpointFile(location)
    } catch (error) {
      throw toStoreError(error, id, 'reading the projection checkpoint')
    }
  }

  async writeCheckpoint(token: JsonlLockToken, id: string, checkpoint: ProjectionCheckpoint, signal: AbortSignal): Promise<void> {
    signal.throwIfAborted()
    await verifySessionLock(token)
    try {
      token.writer.location ??= await this.store.find(id)
      const location = token.writer.location
      if (location === undefined) throw sessionNotFound(id)
      await writeCheckpointFile(location, checkpoint, token.owner.ownerId, this.store.durability)
    } catch (error) {
      throw toStoreError(error, id, 'writing the projection checkpoint')
    }
  }

  /** Where the token's session file is (found once per token). @throws `SESSION_NOT_FOUND`. */
  private async locationOf(token: JsonlLockToken): Promise<SessionLocation> {
    token.writer.location ??= await this.store.find(token.sessionId)
    if (token.writer.location === undefined) throw sessionNotFound(token.sessionId)
    return token.writer.location
  }

  async close(): Promise<void> {
    const errors: unknown[] = []
    for (const token of this.#tokens) {
      const fd = token.writer.fd
      token.writer.fd = undefined
      dropHeldLock(token.writer.lock)
      token.writer.lock = undefined
      try {
        if (fd !== undefined) closeSync(fd)
      } catch (error) {
        errors.push(error)
      }
    }
    this.#tokens.clear()
    if (errors.length > 0) throw new AggregateError(errors, 'jsonl close failed')
  }
}
