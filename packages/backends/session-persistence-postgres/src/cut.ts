/**
 * The cut transaction (02 §6b "Cut"): inside the writer's transaction, after the lease check, the session row is
 * locked and must still be at the scanned incarnation and revision (every write of this backend moves the revision,
 * so an equal revision means the rows are exactly those scanned); the marker must end a row; then every row after
 * that valid row and a checkpoint at or beyond the marker are deleted and the cursor set to the marker.
 */
import { cutUpdatedAt, type EventRowColumns } from '@logbook/session-persistence'
import { conflict, type SessionRow } from './session-row.ts'
import type { Client, PgStore } from './store.ts'

/**
 * Cut session `id` at `marker`; returns the new revision number, row count and incarnation.
 * @throws SessionPersistenceError `SESSION_CONFLICT` (storage changed, or the repair is stale); nothing deleted.
 */
export async function cutRows(
  client: Client, store: PgStore, id: string, marker: number, expected: { readonly incarnation: string; readonly revision: number },
): Promise<{ revision: number; rows: number; incarnation: string }> {
  const sql = store.sql
  const session = (await client.query<SessionRow>(sql.lockSessionRow, [id])).rows[0]
  if (session === undefined) throw conflict(id, 'the session was deleted underneath')
  if (session.incarnation !== expected.incarnation || session.revision !== expected.revision) {
    throw conflict(id, 'storage changed underneath (revision differs)')
  }
  let before: EventRowColumns | undefined
  if (marker > 0 && Number.isSafeInteger(marker)) {
    before = (await client.query({ text: sql.selectRowBefore, values: [id, marker], rowMode: 'array' })).rows[0] as unknown as EventRowColumns | undefined
  }
  const updatedAt = cutUpdatedAt(id, marker, session.next_seq, session.created_at, before)
  // Rows after the kept one go; none is kept for a cut at 0.
  const keepThrough = before === undefined ? -1 : before[0]
  await client.query(sql.deleteEventsAfter, [id, keepThrough])
  await client.query(sql.deleteCheckpointFrom, [id, marker])
  const revision = (await client.query<{ revision: number }>(sql.moveCursor, [id, marker, updatedAt])).rows[0]!.revision
  const rows = (await client.query<{ n: number }>(sql.countEvents, [id])).rows[0]!.n
  return { revision, rows, incarnation: session.incarnation }
}
