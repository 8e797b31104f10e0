/**
 * Projection checkpoint rows (02 §1.6): one `logbook_projection_checkpoints` row per session with the checkpoint
 * JSON and its checksum, replaced atomically under the writer's lease, deleted with the session (cascade) and by a
 * cut at or below its seq, so a stored checkpoint never names an event that is not stored.
 */
import { recordChecksum, SessionPersistenceError, type ProjectionCheckpoint } from '@logbook/session-persistence'
import { crcProblem } from './row-checksums.ts'
import type { SessionRow } from './session-row.ts'
import type { Client, PgStore } from './store.ts'

/**
 * The stored checkpoint of `id`, or `undefined` when absent, unreadable or failing its checksum (derived data:
 * projections rebuild without it), or no longer below the stored `next_seq`.
 */
export async function readCheckpointRow(store: PgStore, id: string): Promise<ProjectionCheckpoint | undefined> {
  const [row] = await store.query<{ seq: number; body: string; crc: number; next_seq: number }>(store.sql.selectCheckpoint, [id])
  if (row === undefined || row.seq >= row.next_seq || crcProblem(row.body, row.crc) !== undefined) return undefined
  try {
    return JSON.parse(row.body) as ProjectionCheckpoint
  } catch {
    return undefined // an unparsable checkpoint is treated as absent
  }
}

/**
 * Replace the checkpoint of `id` inside the writer's transaction (lease already checked).
 * @throws SessionPersistenceError `CHECKPOINT_AHEAD` when its seq is not below the stored `next_seq`.
 */
export async function writeCheckpointRow(client: Client, store: PgStore, id: string, checkpoint: ProjectionCheckpoint): Promise<void> {
  const session = (await client.query<SessionRow>(store.sql.selectSession, [id])).rows[0]
  const nextSeq = session?.next_seq ?? 0
  if (checkpoint.seq >= nextSeq) {
    throw new SessionPersistenceError('CHECKPOINT_AHEAD', `session "${id}": checkpoint seq ${checkpoint.seq} is not below the stored next seq ${nextSeq}`, {
      sessionId: id,
      details: { seq: checkpoint.seq, nextSeq },
    })
  }
  const body = JSON.stringify(checkpoint)
  await client.query(store.sql.upsertCheckpoint, [id, checkpoint.seq, body, recordChecksum(body)])
}
