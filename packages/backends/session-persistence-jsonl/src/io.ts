/**
 * The file-system primitives the backend's durability depends on, gathered in one object so that tests can spy on
 * them (P-096) or inject faults (P-097). Every other module calls them through `io`, never `node:fs` directly, for
 * the calls listed here.
 */
import { constants, fdatasync, ftruncateSync, openSync, readSync, writeSync } from 'node:fs'
import { open } from 'node:fs/promises'

/**
 * Spyable file-system primitives; see the module comment. Writes and truncates are synchronous (page-cache copies:
 * an async round trip per call costs more than the call), syncs are asynchronous (they wait for the device).
 */
export const io = {
  /** `fdatasync` of an open file (the only file sync the backend uses, B4's floor). */
  datasync(fd: number): Promise<void> {
    return new Promise((resolve, reject) => fdatasync(fd, (error) => (error ? reject(error) : resolve())))
  },
  /** `fsync` of a directory, making its entries (new names, renames, unlinks) durable. */
  async fsyncDir(path: string): Promise<void> {
    const dir = await open(path, constants.O_RDONLY | constants.O_DIRECTORY)
    try {
      await dir.sync()
    } finally {
      await dir.close()
    }
  },
  /** One positional write; returns how many bytes were written (may be fewer than asked). */
  write(fd: number, buffer: Buffer, offset: number, length: number, position: number): number {
    return writeSync(fd, buffer, offset, length, position)
  },
  /** `ftruncate` of an open file. */
  truncate(fd: number, length: number): void {
    ftruncateSync(fd, length)
  },
}

/** Durability switch of the configured store (`none` skips every file and directory fsync). */
export type Durability = 'fsync' | 'none'

/** Writes the whole buffer at `position`, looping over short writes. */
export function writeFully(fd: number, buffer: Buffer, position: number): void {
  let done = 0
  while (done < buffer.length) {
    const n = io.write(fd, buffer, done, buffer.length - done, position + done)
    if (n <= 0) throw Object.assign(new Error('write made no progress'), { code: 'EIO' })
    done += n
  }
}

/**
 * Reads `length` bytes from `start` into `into` (or a fresh buffer), looping over short reads; the result is shorter
 * only where the file ends.
 */
export function readAt(fd: number, start: number, length: number, into?: Buffer): Buffer {
  const buffer = into ?? Buffer.allocUnsafe(length)
  let done = 0
  while (done < length) {
    const n = readSync(fd, buffer, done, length - done, start + done)
    if (n === 0) break
    done += n
  }
  return done === buffer.length ? buffer : buffer.subarray(0, done)
}

const SYNCED: Promise<void> = Promise.resolve()

/** `fdatasync` unless durability is `none` (then an already settled promise). */
export function syncFile(fd: number, durability: Durability): Promise<void> {
  return durability === 'fsync' ? io.datasync(fd) : SYNCED
}

/** A directory sync in flight, and the one that runs after it for every request made meanwhile. */
interface DirSync {
  /** Settles, never rejecting, when this sync has finished. */
  readonly settled: Promise<void>
  next: Promise<void> | undefined
}

/** The sync in flight per directory path. */
const dirSyncs = new Map<string, DirSync>()
const ignore = (): void => {}

function startDirSync(path: string): Promise<void> {
  const run = io.fsyncDir(path)
  const sync: DirSync = { settled: run.then(ignore, ignore), next: undefined }
  dirSyncs.set(path, sync)
  void sync.settled.then(() => {
    if (dirSyncs.get(path) === sync && sync.next === undefined) dirSyncs.delete(path)
  })
  return run
}

/**
 * Directory `fsync` unless durability is `none`. Concurrent requests for one directory share syncs (many sessions
 * created at once in one project directory): a sync already running may have read the directory before the caller's
 * change, so the caller waits for the next one, which starts after that one ends and serves every request made while
 * it ran. Each caller's promise settles with a sync that started after its call.
 */
export function syncDir(path: string, durability: Durability): Promise<void> {
  if (durability !== 'fsync') return SYNCED
  const running = dirSyncs.get(path)
  if (running === undefined) return startDirSync(path)
  running.next ??= running.settled.then(() => startDirSync(path))
  return running.next
}

/** The `code` of a Node system error, or undefined. */
export function errnoCode(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && 'code' in error) {
    const code = (error as { code: unknown }).code
    return typeof code === 'string' ? code : undefined
  }
  return undefined
}

/** A read-only descriptor of the file at `path`, or undefined when it does not exist; other errors propagate. */
export function openForReadIfExists(path: string): number | undefined {
  try {
    return openSync(path, 'r')
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined
    throw error
  }
}
