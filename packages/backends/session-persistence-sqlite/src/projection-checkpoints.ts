/**
 * Projection checkpoint rows (02 §1.6, §6): one `logbook_projection_checkpoints` row per session, replaced
 * atomically, deleted with the session (cascade) and by a cut at or below its seq, so a stored checkpoint never
 * names an event that is not stored.
 */

import { SessionPersistenceError, type ProjectionCheckpoint } from '@logbook/session-persistence'
import type { Statement } from './connection.ts'
import type { SessionRow } from './session-row.ts'
import type { StatementName } from './sql.ts'

type Stmt = (name: StatementName) => Statement

/**
 * The stored checkpoint of `id`, or `undefined` when absent, unreadable (derived data: projections rebuild without
 * it) or no longer below the stored `next_seq`. Call inside a read transaction.
 */
export function readCheckpointRow(stmt: Stmt, id: string): ProjectionCheckpoint | undefined {
  const session = stmt('select-session').get({ id }) as SessionRow | undefined
  const row = stmt('select-checkpoint').get({ sessionId: id }) as { seq: number; body: string } | undefined
  if (session === undefined || row === undefined || row.seq >= session.next_seq) return undefined
  try {
    return JSON.parse(row.body) as ProjectionCheckpoint
  } catch {
    return undefined // an unparsable checkpoint is treated as absent
  }
}

/**
 * Replace the checkpoint of `id`; call inside the `BEGIN IMMEDIATE` transaction that re-checked the lease.
 * @throws SessionPersistenceError `CHECKPOINT_AHEAD` when its seq is not below the stored `next_seq`.
 */
export function writeCheckpointRow(stmt: Stmt, id: string, checkpoint: ProjectionCheckpoint): void {
  const session = stmt('select-session').get({ id }) as SessionRow | undefined
  const nextSeq = session?.next_seq ?? 0
  if (checkpoint.seq >= nextSeq) {
    throw new SessionPersistenceError(
      'CHECKPOINT_AHEAD',
      `session "${id}": checkpoint seq ${checkpoint.seq} is not below the stored next seq ${nextSeq}`,
      { sessionId: id, details: { seq: checkpoint.seq, nextSeq } },
    )
  }
  stmt('upsert-checkpoint').run({ sessionId: id, seq: checkpoint.seq, body: JSON.stringify(checkpoint) })
}
