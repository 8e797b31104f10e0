/**
 * Lock owners and holder liveness (spec 02 §3.1, §3.2), shared by the coordinator and every backend: the
 * process-global owner set, `processStart`, the dead-holder rule and the `SESSION_LOCKED` error shapes.
 *
 * Backends use `isHolderDead`, `processLockedError` and `lockLostError`.
 */
import { randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { hostname } from 'node:os'
import type { LockOwner } from './backend.ts'
import { about, SessionPersistenceError } from './errors.ts'
import type { ClaimKind, LockHolderDetails } from './types.ts'

const OWNERS_KEY = Symbol.for('logbook.persistence.owners')

/** The process-global set of owner ids currently held by some coordinator in this process (02 §3.1). */
export function ownerRegistry(): Set<string> {
  const global = globalThis as { [OWNERS_KEY]?: Set<string> }
  return (global[OWNERS_KEY] ??= new Set<string>())
}

/**
 * `starttime` (field 22 of `/proc/<pid>/stat`, proc(5) numbering: the token after the last `)` is field 3) as a
 * decimal string on Linux; `null` elsewhere or when unreadable.
 */
export function processStartOf(pid: number): string | null {
  if (process.platform !== 'linux') return null
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return fields[19] ?? null
  } catch {
    return null // no such process or no procfs: liveness falls back to kill(pid, 0)
  }
}

let ownProcessStart: string | null | undefined

/** Mint a new owner (UUID v4) for this process and register it in the global set until `releaseOwner`. */
export function mintOwner(now: number = Date.now()): LockOwner {
  ownProcessStart ??= processStartOf(process.pid)
  const owner: LockOwner = {
    ownerId: randomUUID(),
    pid: process.pid,
    host: hostname(),
    processStart: ownProcessStart,
    acquiredAt: now,
  }
  ownerRegistry().add(owner.ownerId)
  return owner
}

/** Remove an owner id from the global set (its claim was released). */
export function releaseOwner(ownerId: string): void {
  ownerRegistry().delete(ownerId)
}

/**
 * True iff a recorded holder is dead (02 §3.2): same host and either this pid with an unregistered owner id, or
 * `kill(pid, 0)` fails with `ESRCH`, or both `processStart`s are known and differ. Another host is never dead; an
 * unparsable holder (`null`) is never dead.
 */
export function isHolderDead(holder: LockOwner | null): boolean {
  if (holder === null || holder.host !== hostname()) return false
  if (holder.pid === process.pid) return !ownerRegistry().has(holder.ownerId)
  try {
    process.kill(holder.pid, 0)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return true
    // EPERM: the process exists but belongs to someone else, so it is alive
  }
  const current = processStartOf(holder.pid)
  return holder.processStart !== null && current !== null && current !== holder.processStart
}

/** `details.holder` for a lock held by a process (possibly this one, through another coordinator). */
export function processHolderDetails(holder: LockOwner | null): LockHolderDetails {
  return {
    scope: 'process',
    pid: holder?.pid ?? null,
    host: holder?.host ?? null,
    ownerId: holder?.ownerId ?? null,
    acquiredAt: holder?.acquiredAt ?? null,
    sameHost: holder !== null && holder.host === hostname(),
  }
}

/** `SESSION_LOCKED` for a cross-process lock held by `holder` (`null`: unparsable lock). */
export function processLockedError(sessionId: string, holder: LockOwner | null, location?: string): SessionPersistenceError {
  const who = holder === null
    ? 'an unreadable lock'
    : `process ${holder.pid} on ${holder.host} (owner ${holder.ownerId})`
  return new SessionPersistenceError('SESSION_LOCKED', `${about(sessionId)}the session is locked by ${who}`, {
    sessionId,
    ...(location === undefined ? {} : { location }),
    details: { holder: processHolderDetails(holder) },
  })
}

/** `SESSION_LOCKED` with `details.lost: true`: the lock this writer held vanished or changed owner. */
export function lockLostError(sessionId: string, holder: LockOwner | null | undefined, location?: string): SessionPersistenceError {
  return new SessionPersistenceError('SESSION_LOCKED', `${about(sessionId)}the write lock was lost; nothing was written`, {
    sessionId,
    ...(location === undefined ? {} : { location }),
    details: { lost: true, ...(holder === undefined ? {} : { holder: processHolderDetails(holder) }) },
  })
}

/** `SESSION_LOCKED` for an in-process claim of `kind`. */
export function claimLockedError(sessionId: string, kind: ClaimKind, cause?: unknown): SessionPersistenceError {
  return new SessionPersistenceError('SESSION_LOCKED', `${about(sessionId)}the session is held in this process (${kind})`, {
    sessionId,
    details: { holder: { scope: 'in-process', kind } satisfies LockHolderDetails },
    ...(cause === undefined ? {} : { cause }),
  })
}
