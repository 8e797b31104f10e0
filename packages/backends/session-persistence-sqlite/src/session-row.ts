/**
 * The `logbook_sessions` row (02 §6 "Schema"): `header` is the full header JSON, the other header columns are
 * indexed copies that must agree with it, and the revision token is `sqlite:<storeId>:<incarnation>:<revision>`;
 * plus the row's commit state as the invariant companion reads it.
 */

import type { SessionHeader } from '@logbook/session'
import { checksumProblem, recordChecksum, type HeaderColumns } from '@logbook/session-persistence'
import type { Statement } from './connection.ts'
import type { CommitState } from './types.ts'

/** A `logbook_sessions` row as selected by `select-session.sql` and `list-sessions.sql`. */
export interface SessionRow extends HeaderColumns {
  readonly incarnation: string
  readonly next_seq: number
  readonly updated_at: number
  readonly revision: number
  /** Schema version 2: the header text's checksum (`null` when missing); absent from version-1 rows. */
  readonly crc?: number | null
}

/** `header checksum mismatch (…)` when the row's header text fails its checksum, else `undefined` (or no checksum). */
export function headerChecksumProblem(row: SessionRow): string | undefined {
  if (row.crc === undefined) return undefined
  const problem = checksumProblem(row.crc, recordChecksum(row.header))
  return problem === undefined || problem.ok ? undefined : `header ${problem.reason}`
}

/** The opaque revision token of a stored state (02 §4.4). */
export function revisionToken(storeId: string, incarnation: string, revision: number): string {
  return `sqlite:${storeId}:${incarnation}:${revision}`
}

/** The parameters `insert-session.sql` binds for a new session. */
export function sessionParams(header: SessionHeader, incarnation: string): Record<string, string | number | null> {
  const text = JSON.stringify(header)
  return {
    id: header.id,
    version: header.version,
    createdAt: header.createdAt,
    cwd: header.cwd ?? null,
    parentSession: header.parentSession ?? null,
    header: text,
    incarnation,
    crc: recordChecksum(text),
  }
}

/** `next_seq`, `revision` and the lease owner of `id` in one read-only query (the invariant companion's). */
export function readCommitState(stmt: (name: 'select-commit-state') => Statement, id: string): CommitState | undefined {
  const row = stmt('select-commit-state').get({ id }) as { next_seq: number; revision: number; owner_id: string | null } | undefined
  return row === undefined ? undefined : { nextSeq: row.next_seq, revision: row.revision, ownerId: row.owner_id }
}
