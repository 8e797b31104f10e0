/**
 * The cut transaction (02 §6b "Cut"): inside the writer's transaction, after the lease check, the session row is
 * locked and must still be at the scanned incarnation and revision (every write of this backend moves the revision,
 * so an equal revision means the rows are exactly those scanned); the marker must end a row; then every row after
 * that valid row and a checkpoint at or beyond the marker are deleted and the cursor set to the marker.
 */
import { eventRowLastTime, staleCutError, type EventRowColumns } from '@logbook/session-persistence'
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
  if (!Number.isSafeInteger(marker) || marker < 0 || marker > session.next_seq) throw staleCutError(id, marker, 'not a seq of this log')
  let keepThrough = -1
  let updatedAt = session.created_at
  if (marker > 0) {
    const result = await client.query({ text: sql.selectRowBefore, values: [id, marker], rowMode: 'array' })
    const last = result.rows[0] as unknown as EventRowColumns | undefined
    if (last === undefined || last[1] !== marker - 1) throw staleCutError(id, marker, 'no valid row ends right before it')
    const time = eventRowLastTime(last)
    if (time === undefined) throw staleCutError(id, marker, 'the row before it is not valid')
    keepThrough = last[0]
    updatedAt = time
  }
  await client.query(sql.deleteEventsAfter, [id, keepThrough])
  await client.query(sql.deleteCheckpointFrom, [id, marker])
  const revision = (await client.query<{ revision: number }>(sql.moveCursor, [id, marker, updatedAt])).rows[0]!.revision
  const rows = (await client.query<{ n: number }>(sql.countEvents, [id])).rows[0]!.n
  return { revision, rows, incarnation: session.incarnation }
}
