/**
 * The writing hooks (02 §5 "Materialisation", "Append", "Cut"): atomic first write, positional appends with
 * `fdatasync` and truncate-back on failure, and repair cuts. Every hook runs under the lock, verified first.
 */
import { randomUUID } from 'node:crypto'
import { fstatSync, openSync, readSync } from 'node:fs'
import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import type { SessionHeader } from '@logbook/session'
import type { CommitResult, EncodedRecord, ExpectedState, SessionPersistenceError } from '@logbook/session-persistence'
import { ensureDir, publishNewFile, unlinkQuietly } from './durable-fs.ts'
import { alreadyExistsError, conflictError, storeIoError, toStoreError } from './errors.ts'
import { CURRENT_FRAMING, frameRecords, framingOfFirstByte, type Framing } from './framing.ts'
import { encodeHeaderLine } from './header-line.ts'
import { errnoCode, io, syncFile, writeFully } from './io.ts'
import { encodeId, projectKey, SESSION_FILE } from './layout.ts'
import { removeCheckpointFrom } from './projection-checkpoint.ts'
import { parseRevision, readTail, REVISION_TAIL, StoredState } from './revision.ts'
import { assertLockHeld, verifySessionLock } from './session-lock.ts'
import type { JsonlStore, SessionLocation } from './store.ts'
import type { JsonlLockToken } from './types.ts'

const nextSeqAfter = (records: readonly EncodedRecord[], fallback: number): number =>
  records.length === 0 ? fallback : (records[records.length - 1] as EncodedRecord).lastSeq + 1

/**
 * Creates the session file with `header` and `records` atomically (temp + fsync + link + directory fsync).
 * @throws `SESSION_ALREADY_EXISTS` when any project directory holds the id, `SESSION_LOCKED` (lost), `STORE_IO`.
 */
export async function materializeSession(
  store: JsonlStore,
  token: JsonlLockToken,
  header: SessionHeader,
  records: readonly EncodedRecord[],
): Promise<CommitResult> {
  const id = token.sessionId
  await verifySessionLock(token)
  const key = projectKey(header.cwd)
  const sessionDir = store.layout.sessionDir(key, id)
  const file = join(sessionDir, SESSION_FILE)
  try {
    const storeId = await store.storeId()
    const existing = await store.findAll(id)
    if (existing.length > 0) throw alreadyExistsError(id, (existing[0] as SessionLocation).file)
    await ensureDir(sessionDir, store.durability)
    // Temps of materialisations that crashed before their link (we hold the lock: nobody else writes this id).
    await removeTempsIn(sessionDir)
    const incarnation = randomUUID()
    const data = Buffer.from(`${encodeHeaderLine(header, incarnation)}\n${frameRecords(records, CURRENT_FRAMING)}`, 'utf8')
    try {
      await publishNewFile(`${file}.${token.owner.ownerId}.tmp`, file, data, store.durability)
    } catch (error) {
      if (errnoCode(error) === 'EEXIST') throw alreadyExistsError(id, file)
      throw error
    }
    const location: SessionLocation = { file, sessionDir: encodeId(id), projectDir: key }
    Object.assign(token.writer, { location, framing: CURRENT_FRAMING })
    return commit(token, nextSeqAfter(records, 0), new StoredState(storeId, incarnation, data.length, firstTail(data)))
  } catch (error) {
    throw toStoreError(error, id, 'materialising the session', file)
  }
}

/** Opens (once per token) the session file for positional writes; returns the descriptor. */
async function writerFd(store: JsonlStore, token: JsonlLockToken): Promise<number> {
  const { writer } = token
  if (writer.fd !== undefined) return writer.fd
  writer.location ??= await store.find(token.sessionId)
  if (writer.location === undefined) throw conflictError(token.sessionId, 'the session file vanished')
  const fd = openSync(writer.location.file, 'r+')
  // A session keeps the framing it was created with until `migrate` rewrites it (02 §5 "Lines").
  const first = Buffer.alloc(1)
  writer.framing = framingOfFirstByte(readSync(fd, first, 0, 1, 0) === 1 ? first[0] : undefined)
  writer.fd = fd
  return fd
}

/** A first write up to this size stays referenced as its state's tail; a larger one is copied from. */
const SHARED_TAIL_MAX = 64 * 1024

/** The tail of a file whose whole content is `data` (a materialisation: never mutated afterwards). */
function firstTail(data: Buffer): Buffer {
  return data.length <= SHARED_TAIL_MAX ? data : Buffer.from(data.subarray(data.length - REVISION_TAIL))
}

/** A commit's result: the state it names, its revision hashed only when read (02 §5 "Append"). */
class Committed implements CommitResult {
  readonly physicalLength: number
  readonly #state: StoredState

  constructor(readonly nextSeq: number, state: StoredState) {
    this.physicalLength = state.size
    this.#state = state
  }

  get revision(): string {
    return this.#state.revision
  }
}

/** Adopt `state` as the writer's and hand out the commit result that names it. */
function commit(token: JsonlLockToken, nextSeq: number, state: StoredState): CommitResult {
  const result = new Committed(nextSeq, state)
  token.writer.state = state
  token.writer.committed = result
  return result
}

/**
 * Checks the file is exactly at `expect`: the full revision on a token's first use (or after another state was
 * reported), the size afterwards (02 §5 "Append"). Leaves `writer` describing the current file; returns its size.
 * @throws `SESSION_CONFLICT` "log changed underneath".
 */
async function checkExpected(store: JsonlStore, token: JsonlLockToken, expect: ExpectedState): Promise<number> {
  return checkExpectedAt(token, await writerFd(store, token), expect)
}

/** `checkExpected` on the token's open descriptor `fd` (no await: the append path's common case). */
function checkExpectedAt(token: JsonlLockToken, fd: number, expect: ExpectedState): number {
  const { writer } = token
  const { size } = fstatSync(fd)
  const known = writer.state
  // The writer's own last result needs no compare: it names exactly the state the writer holds.
  if (known !== undefined && (expect === writer.committed || known.revision === expect.revision)) {
    if (size !== known.size) throw changedUnderneath(token, expect, `${size} bytes`)
    return size
  }
  const parsed = parseRevision(expect.revision)
  if (parsed === undefined || parsed.size !== size) throw changedUnderneath(token, expect, `${size} bytes`)
  const state = new StoredState(parsed.storeId, parsed.incarnation, size, readTail(fd, size))
  if (state.revision !== expect.revision) throw changedUnderneath(token, expect, state.revision)
  writer.state = state
  writer.committed = undefined
  return size
}

/** `SESSION_CONFLICT` "log changed underneath": the file is not at `expect` (it is at `found`). */
function changedUnderneath(token: JsonlLockToken, expect: ExpectedState, found: string): SessionPersistenceError {
  return conflictError(token.sessionId, `log changed underneath (expected revision ${expect.revision}, found ${found})`, token.writer.location?.file)
}

/**
 * Appends `records` at the expected end of the file and `fdatasync`s; on failure truncates back (and syncs). The
 * common case (the token's descriptor open) checks and writes synchronously and waits only for the sync.
 * @throws `SESSION_LOCKED` (lost), `SESSION_CONFLICT` ("log changed underneath"), `STORE_IO` (file unchanged; with
 * an `AggregateError` cause when the truncate-back failed too).
 */
export function appendRecords(
  store: JsonlStore,
  token: JsonlLockToken,
  expect: ExpectedState,
  records: readonly EncodedRecord[],
): Promise<CommitResult> {
  try {
    const id = token.sessionId
    assertLockHeld(token)
    const first = records[0]
    if (first !== undefined && first.seq !== expect.nextSeq) {
      throw conflictError(id, `batch starts at seq ${first.seq}, expected ${expect.nextSeq}`, undefined, {
        index: 0,
        expected: expect.nextSeq,
        actual: first.seq,
      })
    }
    const open = token.writer.fd
    if (open === undefined) {
      return checkExpected(store, token, expect).then(
        size => writeAt(store, token, expect, records, size),
        (error: unknown) => { throw toStoreError(error, id, 'checking the session file', token.writer.location?.file) },
      )
    }
    let size: number
    try {
      size = checkExpectedAt(token, open, expect)
    } catch (error) {
      throw toStoreError(error, id, 'checking the session file', token.writer.location?.file)
    }
    return writeAt(store, token, expect, records, size)
  } catch (error) {
    return Promise.reject(error)
  }
}

/** The write and sync of `appendRecords` once the file is known to be `size` bytes at `expect`. */
function writeAt(store: JsonlStore, token: JsonlLockToken, expect: ExpectedState, records: readonly EncodedRecord[], size: number): Promise<CommitResult> {
  if (records.length === 0) return Promise.resolve({ nextSeq: expect.nextSeq, revision: expect.revision, physicalLength: size })
  const { writer } = token
  const fd = writer.fd!
  const known = writer.state!
  const { data, tail } = writer.slab.frame(records, writer.framing ?? CURRENT_FRAMING, known.tail)
  // The state the append produces; the writer adopts it only once synced, and hashes it only when asked.
  const state = new StoredState(known.storeId, known.incarnation, size + data.length, tail)
  let synced: Promise<void>
  try {
    writeFully(fd, data, size)
    synced = syncFile(fd, store.durability)
  } catch (error) {
    return rollBack(store, token, size, error)
  }
  return synced.then(() => commit(token, nextSeqAfter(records, expect.nextSeq), state), (error: unknown) => rollBack(store, token, size, error))
}

/** After a failed write or sync: truncate back to `size` and sync, then reject with `STORE_IO`. */
async function rollBack(store: JsonlStore, token: JsonlLockToken, size: number, error: unknown): Promise<never> {
  const { sessionId: id, writer } = token
  const file = writer.location!.file
  try {
    io.truncate(writer.fd!, size)
    await syncFile(writer.fd!, store.durability)
  } catch (rollbackError) {
    throw storeIoError(id, 'appending (and truncating back)', new AggregateError([error, rollbackError], 'append and rollback failed'), file)
  }
  throw storeIoError(id, 'appending', error, file)
}

/**
 * Truncates the file at `marker` (a record's byte offset), syncs, then removes a checkpoint at or beyond the cut seq
 * (`expect.nextSeq`, the valid prefix length). @throws `SESSION_LOCKED` (lost), `SESSION_CONFLICT`, `STORE_IO`.
 */
export async function cutAt(store: JsonlStore, token: JsonlLockToken, marker: number, expect: ExpectedState): Promise<CommitResult> {
  const id = token.sessionId
  await verifySessionLock(token)
  try {
    const size = await checkExpected(store, token, expect)
    const fd = token.writer.fd!
    const before = Buffer.alloc(1)
    const bytesRead = marker > 0 && marker <= size ? readSync(fd, before, 0, 1, marker - 1) : 0
    if (bytesRead !== 1 || before[0] !== 10) throw conflictError(id, `repair is stale: byte ${marker} does not start a record`)
    io.truncate(fd, marker)
    await syncFile(fd, store.durability)
    const location = token.writer.location!
    await removeCheckpointFrom(location, expect.nextSeq)
    const known = token.writer.state!
    return commit(token, expect.nextSeq, new StoredState(known.storeId, known.incarnation, marker, readTail(fd, marker)))
  } catch (error) {
    throw toStoreError(error, id, 'cutting the torn tail', token.writer.location?.file)
  }
}

const TEMP = /^(session\.jsonl|projections\.json)\..+\.tmp$/

async function removeTempsIn(dir: string): Promise<void> {
  for (const name of await readdir(dir)) if (TEMP.test(name)) await unlinkQuietly(join(dir, name))
}

/** Removes temp files of interrupted materialisations and checkpoint writes in the session's directory. */
export async function removeStaleTemps(store: JsonlStore, token: JsonlLockToken): Promise<void> {
  const location = token.writer.location ?? (await store.find(token.sessionId))
  if (location !== undefined) await removeTempsIn(join(location.file, '..'))
}
