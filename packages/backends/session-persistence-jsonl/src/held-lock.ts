/**
 * The lock check before every write (02 §3.3 step 5) without reopening the lock file: the writer keeps its own lock
 * file open read-only from acquisition to release. A check reads that inode's content (it must still be exactly the
 * record this writer wrote) and `stat`s the lock path (it must still name that inode). The open descriptor keeps the
 * inode alive, so no other file can carry its number meanwhile: both facts together say what reading the lock path
 * says — the lock exists and names this writer. Any other outcome, or any error, answers "unknown", and the caller
 * then reads the lock path as before.
 */
import { closeSync, fstatSync, openSync, readSync, statSync } from 'node:fs'

/** The open lock inode of one writer and the exact bytes it must hold. */
export interface HeldLock {
  readonly fd: number
  readonly dev: bigint
  readonly ino: bigint
  /** The lock record this writer wrote (`encodeLockRecord`). */
  readonly bytes: Buffer
  /** Room for one byte more than `bytes`, so a longer file is seen as different. */
  readonly scratch: Buffer
}

/** Opens the lock at `path` (just acquired, holding `bytes`); `undefined` when that fails (checks then read the path). */
export function holdLockFile(path: string, bytes: Buffer): HeldLock | undefined {
  let fd: number | undefined
  try {
    fd = openSync(path, 'r')
    const { dev, ino } = fstatSync(fd, { bigint: true })
    return { fd, dev, ino, bytes, scratch: Buffer.allocUnsafe(bytes.length + 1) }
  } catch {
    if (fd !== undefined) closeQuietly(fd)
    return undefined
  }
}

/**
 * True when the held inode still holds exactly its record and `path` still names it; false means "not known": the
 * caller reads the lock path to decide.
 */
export function heldLockIntact(path: string, held: HeldLock): boolean {
  try {
    const { bytes, scratch } = held
    const n = readSync(held.fd, scratch, 0, scratch.length, 0)
    if (n !== bytes.length || scratch.compare(bytes, 0, n, 0, n) !== 0) return false
    const current = statSync(path, { bigint: true, throwIfNoEntry: false })
    return current !== undefined && current.ino === held.ino && current.dev === held.dev
  } catch {
    return false
  }
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
