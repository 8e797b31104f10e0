/**
 * A session's lock as this backend's hooks use it (02 §3.3): take it (creating the store identity on first use) and
 * hand out a token, verify it before every write, release, read and break it — over the lock-file mechanics of
 * lock-file.ts, with failures mapped to the seam's errors.
 *
 * The check before every write (step 5) does not reopen the lock file: the writer keeps its own lock file open
 * read-only from acquisition to release. The common case is one `fstat` of that descriptor: the inode must still
 * have exactly one link, its record's size and the change time a full check last vouched for. The lock path is the
 * inode's only link (the temp it was linked from is gone), so every way to take the lock away from this writer —
 * `breakLock`, a takeover, `rm`, a rename over it — unlinks it and leaves it with no link; every other change to it
 * (a write, a truncate, a rename, a second link) moves its change time. A full check reads the inode's content (it
 * must still be exactly the record this writer wrote) and `stat`s the lock path (it must still name that inode); the
 * open descriptor keeps the inode alive, so no other file can carry its number meanwhile. The change time is trusted
 * only once a full check ran well after it (`CTIME_SETTLED_MS`): a file system stamps changes with a coarse clock, so
 * a change in the same tick as the last one could keep the time. Any other outcome, or any error, answers "unknown",
 * and the check then reads the lock path.
 */
import { closeSync, fstatSync, openSync, readSync, statSync } from 'node:fs'
import {
  isHolderDead,
  lockLostError,
  processLockedError,
  SessionPersistenceError,
  type LockInfo,
  type LockOwner,
} from '@logbook/session-persistence'
import { AppendSlab } from './append-slab.ts'
import { toStoreError } from './errors.ts'
import {
  acquireLockFile,
  breakLockFile,
  encodeLockRecord,
  readLockFile,
  readLockFileSync,
  releaseLockFile,
  type LockRecord,
} from './lock-file.ts'
import type { JsonlStore } from './store.ts'
import type { HeldLock, JsonlLockToken } from './types.ts'

function toOwner(record: LockRecord): LockOwner {
  const { ownerId, pid, host, processStart, acquiredAt } = record
  return { ownerId, pid, host, processStart, acquiredAt }
}

/** Takes the lock of `id` for `owner`. @throws `SESSION_LOCKED` with the live (or unparsable) holder. */
export async function lockSession(store: JsonlStore, id: string, owner: LockOwner): Promise<JsonlLockToken> {
  const lockPath = store.layout.lockFile(id)
  const record: LockRecord = { v: 1, sessionId: id, ...owner }
  try {
    await store.prepareForWrite()
    const result = await acquireLockFile(lockPath, record, store.durability, isHolderDead)
    if (!result.ok) throw processLockedError(id, result.holder === null ? null : toOwner(result.holder))
  } catch (error) {
    throw toStoreError(error, id, 'taking the lock', lockPath)
  }
  const lock = holdLockFile(lockPath, encodeLockRecord(record))
  return {
    sessionId: id,
    owner,
    lockPath,
    writer: { location: undefined, fd: undefined, state: undefined, committed: undefined, framing: undefined, slab: new AppendSlab(), released: false, lock },
  }
}

/**
 * Confirms `token` still owns its lock file (synchronous and small: it runs before every append). The lock file the
 * token holds open answers when it is intact (see the module comment); otherwise the lock path is read.
 * @throws `SESSION_LOCKED` with `details.lost: true`.
 */
export async function verifySessionLock(token: JsonlLockToken): Promise<void> {
  assertLockHeld(token)
}

/**
 * `verifySessionLock` without the promise, for the append path (02 §3.3 step 5).
 * @throws `SESSION_LOCKED` with `details.lost: true`.
 */
export function assertLockHeld(token: JsonlLockToken): void {
  const held = token.writer.lock
  if (held !== undefined && !token.writer.released && heldLockIntact(token.lockPath, held)) return
  let current
  try {
    current = readLockFileSync(token.lockPath)
  } catch (error) {
    throw toStoreError(error, token.sessionId, 'reading the lock', token.lockPath)
  }
  if (token.writer.released || current === undefined || current === null || current.ownerId !== token.owner.ownerId) {
    throw lockLostError(token.sessionId, current === undefined ? undefined : current === null ? null : toOwner(current))
  }
}

/** Releases the lock if `token` still owns it and closes its descriptor; a lost lock is left alone. */
export async function unlockSession(token: JsonlLockToken): Promise<void> {
  const { writer } = token
  const fd = writer.fd
  writer.fd = undefined
  dropHeldLock(writer.lock)
  writer.lock = undefined
  try {
    if (fd !== undefined) closeSync(fd)
    if (!writer.released) await releaseLockFile(token.lockPath, token.owner.ownerId)
    writer.released = true
  } catch (error) {
    throw toStoreError(error, token.sessionId, 'releasing the lock', token.lockPath)
  }
}

/** The stored lock of `id`, if any. */
export async function readSessionLock(store: JsonlStore, id: string): Promise<LockInfo | undefined> {
  const path = store.layout.lockFile(id)
  try {
    const current = await readLockFile(path)
    if (current === undefined) return undefined
    return { holder: current === null ? null : toOwner(current) }
  } catch (error) {
    throw toStoreError(error, id, 'reading the lock', path)
  }
}

/** Removes the lock of `id` when its owner is `ownerId`. @throws `SESSION_CONFLICT` for another owner. */
export async function breakSessionLock(store: JsonlStore, id: string, ownerId: string | null): Promise<void> {
  const path = store.layout.lockFile(id)
  let result
  try {
    result = await breakLockFile(path, ownerId)
  } catch (error) {
    throw toStoreError(error, id, 'breaking the lock', path)
  }
  if (result.outcome === 'mismatch') {
    const holder = result.holder === null ? 'an unparsable lock' : `owner ${result.holder.ownerId}`
    throw new SessionPersistenceError('SESSION_CONFLICT', `session "${id}": the lock is held by ${holder}, not ${ownerId ?? 'an unparsable lock'}`, {
      sessionId: id,
      location: path,
      details: { ownerId: result.holder === null ? null : result.holder.ownerId },
    })
  }
}

// ----- the held lock file ---------------------------------------------------------------------------------------

/**
 * How long after an inode's change time a full check must run before that time is trusted to move on any later
 * change: well above the coarsest timestamp clocks (one tick of the kernel's coarse clock, a few ms; whole seconds
 * on some file systems, whose times then carry no fraction).
 */
export const CTIME_SETTLED_MS = { fine: 50, wholeSecond: 2000 } as const

/**
 * The real time in ms, from the monotonic clock and the process's start, not `Date.now()`, which programs replace
 * (a virtual clock for replays, fake timers): a clock behind the real one only delays the trust.
 */
function wallClock(): number {
  return performance.timeOrigin + performance.now()
}

/** Opens the lock at `path` (just acquired, holding `bytes`); `undefined` when that fails (checks then read the path). */
function holdLockFile(path: string, bytes: Buffer): HeldLock | undefined {
  let fd: number | undefined
  try {
    fd = openSync(path, 'r')
    const { dev, ino } = fstatSync(fd, { bigint: true })
    return { fd, dev, ino, bytes, scratch: Buffer.allocUnsafe(bytes.length + 1), trustedCtime: undefined }
  } catch {
    if (fd !== undefined) closeQuietly(fd)
    return undefined
  }
}

/**
 * True when the held inode still holds exactly its record and `path` still names it; false means "not known": the
 * caller reads the lock path to decide. One `fstat` answers while the inode is unchanged since a trusted full check.
 */
function heldLockIntact(path: string, held: HeldLock): boolean {
  try {
    const st = fstatSync(held.fd)
    if (st.nlink === 1 && st.size === held.bytes.length && st.ctimeMs === held.trustedCtime) return true
    held.trustedCtime = undefined
    if (!fullCheck(path, held)) return false
    // `st` was taken before the read: a change since then moves the time and only costs the next check a full one.
    const settled = st.ctimeMs % 1000 === 0 ? CTIME_SETTLED_MS.wholeSecond : CTIME_SETTLED_MS.fine
    if (st.nlink === 1 && wallClock() - st.ctimeMs >= settled) held.trustedCtime = st.ctimeMs
    return true
  } catch {
    held.trustedCtime = undefined
    return false
  }
}

/** Reads the held inode (it must hold exactly its record) and `stat`s `path` (it must name that inode). */
function fullCheck(path: string, held: HeldLock): boolean {
  const { bytes, scratch } = held
  const n = readSync(held.fd, scratch, 0, scratch.length, 0)
  if (n !== bytes.length || scratch.compare(bytes, 0, n, 0, n) !== 0) return false
  const current = statSync(path, { bigint: true, throwIfNoEntry: false })
  return current !== undefined && current.ino === held.ino && current.dev === held.dev
}

/** Closes the held descriptor (errors ignored: it is read-only and nothing depends on the close). */
export function dropHeldLock(held: HeldLock | undefined): void {
  if (held !== undefined) closeQuietly(held.fd)
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd)
  } catch {
    // A read-only descriptor: nothing to lose.
  }
}
