/**
 * The SQLite lease (02 §3.4): one `logbook_leases` row per locked id, taken and re-checked inside `BEGIN IMMEDIATE`
 * transactions. A dead holder (02 §3.2, `isHolderDead`) is replaced; a live one refuses with `SESSION_LOCKED`.
 */

import {
  isHolderDead,
  lockLostError,
  processLockedError,
  SessionPersistenceError,
  type LockOwner,
  type LockToken,
} from '@logbook/session-persistence'
import type { Statement } from './connection.ts'

/** A `logbook_leases` row as selected by `select-lease.sql`. */
interface LeaseRow {
  readonly session_id: string
  readonly owner_id: string
  readonly pid: number
  readonly host: string
  readonly process_start: string | null
  readonly acquired_at: number
}

type Stmt = (name: 'select-lease' | 'insert-lease' | 'delete-lease' | 'select-leases') => Statement

/** The holder recorded in a lease row. */
function holderOf(row: Omit<LeaseRow, 'session_id'>): LockOwner {
  return {
    ownerId: row.owner_id,
    pid: row.pid,
    host: row.host,
    processStart: row.process_start,
    acquiredAt: row.acquired_at,
  }
}

/**
 * Refuse when any lease not owned by `ownerId` has a live holder (a whole-store operation needs every session free).
 * Call inside a transaction. @throws SessionPersistenceError `SESSION_LOCKED` naming the first such session.
 */
export function requireNoOtherLease(stmt: Stmt, ownerId: string, location?: string): void {
  for (const row of stmt('select-leases').all() as LeaseRow[]) {
    const holder = holderOf(row)
    if (holder.ownerId !== ownerId && !isHolderDead(holder)) throw processLockedError(row.session_id, holder, location)
  }
}

/** The lease of `sessionId`, or `undefined`. Call inside a transaction. */
export function readLease(stmt: Stmt, sessionId: string): LockOwner | undefined {
  const row = stmt('select-lease').get({ sessionId }) as LeaseRow | undefined
  return row === undefined ? undefined : holderOf(row)
}

/**
 * Take the lease of `sessionId` for `owner`: no row → insert; ours → keep; dead holder → replace; else refuse.
 * Call inside `BEGIN IMMEDIATE`.
 * @throws SessionPersistenceError `SESSION_LOCKED` with `details.holder` of the live holder.
 */
export function takeLease(stmt: Stmt, sessionId: string, owner: LockOwner, location?: string): void {
  const holder = readLease(stmt, sessionId)
  if (holder !== undefined) {
    if (holder.ownerId === owner.ownerId) return
    if (!isHolderDead(holder)) throw processLockedError(sessionId, holder, location)
    stmt('delete-lease').run({ sessionId, ownerId: holder.ownerId })
  }
  stmt('insert-lease').run({
    sessionId,
    ownerId: owner.ownerId,
    pid: owner.pid,
    host: owner.host,
    processStart: owner.processStart,
    acquiredAt: owner.acquiredAt,
  })
}

/**
 * Require that the lease row of the token's id still names the token's owner. Call inside the writing transaction,
 * before any other check.
 * @throws SessionPersistenceError `SESSION_LOCKED` with `details.lost: true`.
 */
export function requireLease(stmt: Stmt, token: LockToken, location?: string): void {
  const holder = readLease(stmt, token.sessionId)
  if (holder?.ownerId !== token.owner.ownerId) throw lockLostError(token.sessionId, holder ?? undefined, location)
}

/**
 * `requireLease` on a lease row already read (by a statement that selected it with more columns, the append's
 * `select-append-state`): `row` is the token's id's lease, `undefined` when there is none.
 * @throws SessionPersistenceError `SESSION_LOCKED` with `details.lost: true`.
 */
export function requireLeaseRow(row: Omit<LeaseRow, 'session_id'> | undefined, token: LockToken, location?: string): void {
  if (row?.owner_id !== token.owner.ownerId) {
    throw lockLostError(token.sessionId, row === undefined ? undefined : holderOf(row), location)
  }
}

/** Delete the lease of `sessionId` if `ownerId` holds it; reports whether a row was deleted. */
export function dropLease(stmt: Stmt, sessionId: string, ownerId: string): boolean {
  return stmt('delete-lease').run({ sessionId, ownerId }).changes > 0
}

/**
 * Remove the lease of `sessionId` when its owner id equals `ownerId`, alive or not; no lease → nothing. A lease row is
 * always parsable, so `ownerId: null` matches none.
 * @throws SessionPersistenceError `SESSION_CONFLICT` when another owner holds it.
 */
export function breakLease(stmt: Stmt, sessionId: string, ownerId: string | null, location?: string): void {
  const holder = readLease(stmt, sessionId)
  if (holder === undefined) return
  if (ownerId === null || holder.ownerId !== ownerId) {
    throw new SessionPersistenceError(
      'SESSION_CONFLICT',
      `session "${sessionId}": the lock is held by owner ${holder.ownerId}, not ${String(ownerId)}`,
      { sessionId, ...(location === undefined ? {} : { location }), details: { ownerId: holder.ownerId } },
    )
  }
  dropLease(stmt, sessionId, holder.ownerId)
}
