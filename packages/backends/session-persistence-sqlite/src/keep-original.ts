/**
 * Maintenance that keeps the original (02 §4.7): a `VACUUM INTO` copy of the whole database beside it before a
 * repair cuts rows (`…<stamp>.bak`) or a migration changes the schema (`…<stamp>.v<version>`), and the migration
 * itself — schema version 1 or 2 to 3, in place, in one `BEGIN IMMEDIATE` transaction: every session must pass the
 * read checks and be free of live holders, then (from 1) the `crc` columns are added, `logbook_events` is rebuilt
 * as a rowid table, (from 1) the checksums are filled and `user_version` is set to 3. Connections of other processes
 * see the schema change at their next transaction and follow it.
 */

import { closeSync, openSync, unlinkSync } from 'node:fs'
import { createKeptCopy, recordChecksum, type PhysicalScan } from '@logbook/session-persistence'
import type { Statement, StoreConnection } from './connection.ts'
import { upgradeSchema } from './identity.ts'
import { requireNoOtherLease } from './lease.ts'
import { scanSession, type ScanState } from './scan.ts'
import type { StatementName } from './sql.ts'

type Stmt = (name: StatementName) => Statement

/** A consistent copy of the whole database in a new 0600 file beside it; returns its path. @throws `STORE_IO`. */
export function keepCopy(connection: StoreConnection, why: string): Promise<string> {
  return createKeptCopy(connection.path, why, (name) => {
    closeSync(openSync(name, 'wx', 0o600))
    try {
      connection.vacuumInto(name)
    } catch (error) {
      unlinkSync(name)
      throw error
    }
  })
}

/** Every session id, each scanned and passed to `verify`; then no live lease but `ownerId`'s. Inside a transaction. */
function checkAll(stmt: Stmt, state: ScanState, ownerId: string, verify: (id: string, scan: PhysicalScan<number>) => void): string[] {
  const ids = (stmt('select-session-ids').all() as { id: string }[]).map(row => row.id)
  for (const id of ids) {
    const scan = scanSession(stmt, id, undefined, state)
    if (scan !== undefined) verify(id, scan)
  }
  requireNoOtherLease(stmt, ownerId, state.location)
  return ids
}

/** Compute and store the checksum of every header and event row (the `crc` columns just added to a version-1 store). */
function fillChecksums(stmt: Stmt, ids: readonly string[]): void {
  const updateSession = stmt('update-session-crc')
  const updateEvent = stmt('update-event-crc')
  for (const id of ids) {
    const session = stmt('select-session').get({ id }) as { header: string }
    updateSession.run({ id, crc: recordChecksum(session.header) })
    for (const row of stmt('select-events-from').all({ sessionId: id, fromSeq: 0 }) as { seq: number; body: string }[]) {
      updateEvent.run({ sessionId: id, seq: row.seq, crc: recordChecksum(row.body) })
    }
  }
}

/**
 * Migrate the store of `connection` from its schema version to the current one, keeping a copy of the original
 * beside it. Returns the sessions rewritten and where the copy is (removed again when the migration fails).
 * @throws what `verify` throws (a session that fails the read checks), `SESSION_LOCKED` (a live holder), `STORE_IO`.
 */
export async function migrateStore(
  connection: StoreConnection,
  state: () => ScanState,
  ownerId: string,
  verify: (id: string, scan: PhysicalScan<number>) => void,
): Promise<{ sessions: string[]; original: string }> {
  connection.read(stmt => checkAll(stmt, state(), ownerId, verify))
  const from = connection.version
  const original = await keepCopy(connection, `v${from}`)
  try {
    const sessions = connection.migrate((db, stmt) => {
      const ids = checkAll(stmt, state(), ownerId, verify)
      const version = connection.version
      upgradeSchema(db, version)
      if (version < 2) fillChecksums(stmt, ids)
      return ids
    })
    return { sessions, original }
  } catch (error) {
    unlinkSync(original)
    throw error
  }
}
