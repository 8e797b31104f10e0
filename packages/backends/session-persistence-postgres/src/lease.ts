/**
 * The write lease (02 §6b "Lease"): one `logbook_leases` row per locked session naming the holder (owner id, host,
 * pid, process start), a `token` minted per acquisition, and `expires_at` computed by the server's clock. A lease is
 * taken over when it has expired, or at once when its holder is dead on this host (02 §3.2); a live lease refuses
 * with `SESSION_LOCKED`. Every write re-checks the token inside its own transaction (the fence), so a holder that
 * lost its lease writes nothing.
 */
import { randomUUID } from 'node:crypto'
import {
  isHolderDead,
  lockLostError,
  processLockedError,
  SessionPersistenceError,
  type LockOwner,
  type LockToken,
} from '@logbook/session-persistence'
import type { Client, PgStore } from './store.ts'

/** A lease held by this backend: the seam's token plus the fencing token written in the row. */
export interface LeaseToken extends LockToken {
  readonly lease: string
}

/** A `logbook_leases` row as selected. */
export interface LeaseRow {
  readonly owner_id: string
  readonly pid: number
  readonly host: string
  readonly process_start: string | null
  readonly acquired_at: number
  readonly token: string
  readonly expired?: boolean
}

/** The holder a lease row records. */
export function holderOf(row: LeaseRow): LockOwner {
  return { ownerId: row.owner_id, pid: row.pid, host: row.host, processStart: row.process_start, acquiredAt: row.acquired_at }
}

/** Rounds of insert-or-inspect before giving up (a lease released between the two steps makes one more round). */
const ROUNDS = 3

/**
 * Take the lease of `sessionId` for `owner` lasting `durationMs`: insert it when absent; replace it when ours, expired
 * or held by a dead holder on this host; else refuse. Each round is one transaction.
 * @throws SessionPersistenceError `SESSION_LOCKED` naming the live holder, `STORE_IO`.
 */
export async function takeLease(store: PgStore, sessionId: string, owner: LockOwner, durationMs: number): Promise<LeaseToken> {
  const sql = store.sql
  const lease = randomUUID()
  const values = [owner.ownerId, owner.pid, owner.host, owner.processStart, owner.acquiredAt, lease]
  for (let round = 0; round < ROUNDS; round++) {
    // The common cases in one round trip: a free lease is inserted; a live holder refuses at once.
    const [claim] = await store.query<LeaseRow & { inserted: number }>(sql.claimLease, [sessionId, ...values, durationMs])
    if (claim?.inserted === 1) return { sessionId, owner, lease }
    if (claim?.owner_id != null && claim.owner_id !== owner.ownerId && claim.expired !== true && !isHolderDead(holderOf(claim))) {
      throw processLockedError(sessionId, holderOf(claim))
    }
    const taken = await store.transaction(async (client) => {
      const inserted = await client.query(sql.insertLease, [sessionId, ...values, durationMs])
      if (inserted.rowCount === 1) return true
      const row = (await client.query<LeaseRow>(sql.selectLeaseForUpdate, [sessionId])).rows[0]
      if (row === undefined) return false // released in between: insert again
      const holder = holderOf(row)
      if (row.owner_id !== owner.ownerId && row.expired !== true && !isHolderDead(holder)) {
        throw processLockedError(sessionId, holder)
      }
      await client.query(sql.replaceLease, [sessionId, row.token, ...values, durationMs])
      return true
    })
    if (taken) return { sessionId, owner, lease }
  }
  throw new SessionPersistenceError('STORE_IO', `session "${sessionId}": the lease kept changing while it was taken; try again`, {
    sessionId,
    details: { reason: 'serialization' },
  })
}

/**
 * Inside a writing transaction: require that the lease still carries `token`, locking the row `FOR SHARE` so a
 * takeover waits for this transaction.
 * @throws SessionPersistenceError `SESSION_LOCKED` with `details.lost: true`.
 */
export async function requireLease(client: Client, store: PgStore, token: LeaseToken): Promise<void> {
  const row = (await client.query<LeaseRow>(store.sql.holdsLease, [token.sessionId])).rows[0]
  if (row?.token !== token.lease) throw lockLostError(token.sessionId, row === undefined ? undefined : holderOf(row))
}

/** The `SESSION_LOCKED` `lost` error for `token`, naming the current holder (one read). */
export async function lostLeaseError(store: PgStore, token: LeaseToken): Promise<SessionPersistenceError> {
  const row = (await store.query<LeaseRow>(store.sql.selectLease, [token.sessionId]))[0]
  return lockLostError(token.sessionId, row === undefined ? undefined : holderOf(row))
}

/** Extend the lease by `durationMs` from the server's now; false when it is no longer ours. */
export async function renewLease(store: PgStore, token: LeaseToken, durationMs: number): Promise<boolean> {
  return (await store.query(store.sql.renewLease, [token.sessionId, token.lease, durationMs])).length === 1
}

/** Delete the lease if `token` still holds it. */
export async function dropLease(store: PgStore, token: LeaseToken): Promise<void> {
  await store.query(store.sql.deleteLease, [token.sessionId, token.lease])
}

/** The stored holder of `sessionId`, if any. */
export async function readLease(store: PgStore, sessionId: string): Promise<LockOwner | undefined> {
  const row = (await store.query<LeaseRow>(store.sql.selectLease, [sessionId]))[0]
  return row === undefined ? undefined : holderOf(row)
}

/**
 * Remove the lease of `sessionId` when its owner id equals `ownerId`, alive or not; no lease → nothing. A lease row
 * always parses, so `ownerId: null` matches none.
 * @throws SessionPersistenceError `SESSION_CONFLICT` when another owner holds it.
 */
export async function breakLease(store: PgStore, sessionId: string, ownerId: string | null): Promise<void> {
  await store.transaction(async (client) => {
    const row = (await client.query<LeaseRow>(store.sql.selectLeaseForUpdate, [sessionId])).rows[0]
    if (row === undefined) return
    if (ownerId === null || row.owner_id !== ownerId) {
      throw new SessionPersistenceError('SESSION_CONFLICT', `session "${sessionId}": the lock is held by owner ${row.owner_id}, not ${String(ownerId)}`, {
        sessionId,
        details: { ownerId: row.owner_id },
      })
    }
    await client.query(store.sql.deleteLeaseOfOwner, [sessionId, row.owner_id])
  })
}
