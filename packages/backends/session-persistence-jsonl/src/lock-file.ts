/**
 * The cross-process lock file (02 §3.3): `link(2)` of a fully written temp file is the only way a lock comes into
 * existence, and a dead holder's lock is removed only by the holder of the takeover token named after it, so
 * racing takers never remove each other's fresh lock.
 */
import { readFileSync } from 'node:fs'
import { link, readFile } from 'node:fs/promises'
import { unlinkIfPresent, unlinkQuietly, writeNewFile } from './durable-fs.ts'
import { errnoCode, type Durability } from './io.ts'

/** Content of a lock file (and of a takeover token), in the field order of 02 §3.3. */
export interface LockRecord {
  readonly v: 1
  readonly sessionId: string
  readonly ownerId: string
  readonly pid: number
  readonly host: string
  /** `/proc/<pid>/stat` field 22, or null off Linux. */
  readonly processStart: string | null
  readonly acquiredAt: number
}

/** Decides whether a recorded holder is dead (02 §3.2). */
export type IsHolderDead = (holder: LockRecord) => boolean

/** What stands in the way of an acquisition: a parsed holder, or `null` for an unparsable lock file. */
export type LockObstacle = LockRecord | null

/** Outcome of {@link acquireLockFile}. */
export type AcquireResult = { readonly ok: true } | { readonly ok: false; readonly holder: LockObstacle }

const MAX_ROUNDS = 3
const MAX_TAKEOVER_DEPTH = 3

/** Serialises a lock record with the field order of 02 §3.3. */
export function encodeLockRecord(record: LockRecord): Buffer {
  const { v, sessionId, ownerId, pid, host, processStart, acquiredAt } = record
  return Buffer.from(`${JSON.stringify({ v, sessionId, ownerId, pid, host, processStart, acquiredAt })}\n`, 'utf8')
}

/** Parses a lock record; anything malformed is `null` (an unparsable lock). */
export function parseLockRecord(text: string): LockRecord | null {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return null
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null
  const r = value as Record<string, unknown>
  const ok =
    r.v === 1 &&
    typeof r.sessionId === 'string' &&
    typeof r.ownerId === 'string' &&
    r.ownerId !== '' &&
    Number.isSafeInteger(r.pid) &&
    (r.pid as number) > 0 &&
    typeof r.host === 'string' &&
    (r.processStart === null || typeof r.processStart === 'string') &&
    Number.isSafeInteger(r.acquiredAt)
  if (!ok) return null
  return {
    v: 1,
    sessionId: r.sessionId as string,
    ownerId: r.ownerId as string,
    pid: r.pid as number,
    host: r.host as string,
    processStart: r.processStart as string | null,
    acquiredAt: r.acquiredAt as number,
  }
}

/** Reads the lock at `path`: `undefined` when absent, `null` when unparsable, else the record. */
export async function readLockFile(path: string): Promise<LockRecord | null | undefined> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined
    throw error
  }
  return parseLockRecord(text)
}

/** Synchronous `readLockFile`, for the check before every write. */
export function readLockFileSync(path: string): LockRecord | null | undefined {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined
    throw error
  }
  return parseLockRecord(text)
}

/**
 * Acquires the lock file at `path` for `record` (02 §3.3 steps 1–4); the directory must exist. Returns the live or
 * unparsable holder that prevented it; a dead holder on this host is taken over (at most 3 rounds).
 */
export async function acquireLockFile(
  path: string,
  record: LockRecord,
  durability: Durability,
  isDead: IsHolderDead,
): Promise<AcquireResult> {
  return acquireAt({ record, durability, isDead }, path, 0)
}

interface Attempt {
  readonly record: LockRecord
  readonly durability: Durability
  readonly isDead: IsHolderDead
}

async function acquireAt(attempt: Attempt, path: string, depth: number): Promise<AcquireResult> {
  const { record, durability } = attempt
  const temp = `${path}.${record.ownerId}.tmp`
  await unlinkQuietly(temp)
  await writeNewFile(temp, encodeLockRecord(record), durability)
  try {
    let lastHolder: LockObstacle = null
    for (let round = 0; round < MAX_ROUNDS; round++) {
      try {
        await link(temp, path)
        return { ok: true }
      } catch (error) {
        if (errnoCode(error) !== 'EEXIST') throw error
      }
      const holder = await readLockFile(path)
      if (holder === undefined) continue // released between our link and our read: try again
      lastHolder = holder
      if (holder === null || !attempt.isDead(holder)) return { ok: false, holder }
      if (depth >= MAX_TAKEOVER_DEPTH) return { ok: false, holder }
      const token = await takeOver(attempt, path, holder.ownerId, depth + 1)
      if (!token.ok) return token
    }
    return { ok: false, holder: lastHolder }
  } finally {
    await unlinkQuietly(temp)
  }
}

/**
 * Removes the lock at `path` if it is still owned by `deadOwner`, holding the token `<path>.takeover-<deadOwner>`
 * while doing so. A live holder of the token (another taker) is returned as the obstacle.
 */
async function takeOver(attempt: Attempt, path: string, deadOwner: string, depth: number): Promise<AcquireResult> {
  const tokenPath = `${path}.takeover-${deadOwner}`
  const token = await acquireAt(attempt, tokenPath, depth)
  if (!token.ok) return token
  try {
    const current = await readLockFile(path)
    if (current !== undefined && current !== null && current.ownerId === deadOwner) await unlinkIfPresent(path)
  } finally {
    await unlinkIfPresent(tokenPath)
  }
  return { ok: true }
}

/** True when the lock at `path` exists and names `ownerId`. */
export async function holdsLockFile(path: string, ownerId: string): Promise<boolean> {
  const current = await readLockFile(path)
  return current !== undefined && current !== null && current.ownerId === ownerId
}

/** Unlinks the lock at `path` if it still names `ownerId`; a lost lock is left alone. Returns whether it unlinked. */
export async function releaseLockFile(path: string, ownerId: string): Promise<boolean> {
  if (!(await holdsLockFile(path, ownerId))) return false
  return unlinkIfPresent(path)
}

/**
 * Removes the lock at `path` when its owner id equals `ownerId` (`null` matches an unparsable lock). Returns
 * `'removed'`, `'absent'`, or the mismatching current holder.
 */
export async function breakLockFile(
  path: string,
  ownerId: string | null,
): Promise<{ readonly outcome: 'removed' | 'absent' } | { readonly outcome: 'mismatch'; readonly holder: LockObstacle }> {
  const current = await readLockFile(path)
  if (current === undefined) return { outcome: 'absent' }
  const currentOwner = current === null ? null : current.ownerId
  if (currentOwner !== ownerId) return { outcome: 'mismatch', holder: current }
  return { outcome: (await unlinkIfPresent(path)) ? 'removed' : 'absent' }
}
