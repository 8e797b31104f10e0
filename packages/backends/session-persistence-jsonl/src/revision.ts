/**
 * JSONL revisions (02 §4.4): `jsonl:<storeId>:<incarnation>:<size>:<first 16 hex of SHA-256 of the last
 * min(4096, size) bytes>` — one exact stored state, compared for equality only.
 */
import { hash } from 'node:crypto'
import { readAt } from './io.ts'

/** How many trailing bytes a revision hashes. */
export const REVISION_TAIL = 4096

/** The revision of a file of `size` bytes whose last bytes are `tail` (at most 4096 of them are used). */
export function revisionOf(storeId: string, incarnation: string, size: number, tail: Buffer): string {
  const used = tail.length > REVISION_TAIL ? tail.subarray(tail.length - REVISION_TAIL) : tail
  const digest = hash('sha256', used, 'hex').slice(0, 16)
  return `jsonl:${storeId}:${incarnation}:${size}:${digest}`
}

/**
 * One stored state of a session file as its writer knows it: the size and the last bytes at that size, with the
 * revision hashed when first read (an append's result is usually only compared by identity, 02 §5 "Append").
 */
export class StoredState {
  #text: string | undefined

  /** `tail`: the last `min(4096, size)` bytes at `size` (a longer buffer's last 4096 are used); never mutated. */
  constructor(readonly storeId: string, readonly incarnation: string, readonly size: number, readonly tail: Buffer) {}

  /** The revision of this state (02 §4.4). */
  get revision(): string {
    return (this.#text ??= revisionOf(this.storeId, this.incarnation, this.size, this.tail))
  }
}

/**
 * Reads the last `min(4096, size)` bytes of an open file of `size` bytes (a small synchronous read), into `into` when
 * given (a scratch the caller consumes before its next read), else into a fresh buffer a state may keep.
 */
export function readTail(fd: number, size: number, into?: Buffer): Buffer {
  const length = Math.min(REVISION_TAIL, size)
  return readAt(fd, size - length, length, into)
}

/** The parts of a JSONL revision, or undefined when `revision` is not one. */
export function parseRevision(revision: string): { storeId: string; incarnation: string; size: number } | undefined {
  const parts = revision.split(':')
  if (parts.length !== 5 || parts[0] !== 'jsonl') return undefined
  const size = Number(parts[3])
  if (!Number.isSafeInteger(size) || size < 0) return undefined
  return { storeId: parts[1] as string, incarnation: parts[2] as string, size }
}
