/**
 * The `logbook_sessions` row: `header` is the full header JSON (its checksum in `crc`), the other header columns
 * are indexed copies that must agree with it, and the revision token is `postgres:<storeId>:<incarnation>:<revision>`.
 */
import type { SessionHeader } from '@logbook/session'
import { recordChecksum, SessionPersistenceError, type HeaderColumns } from '@logbook/session-persistence'
import { crcProblem } from './row-checksums.ts'

/** A `logbook_sessions` row as selected. */
export interface SessionRow extends HeaderColumns {
  readonly incarnation: string
  readonly next_seq: number
  readonly updated_at: number
  readonly revision: number
  readonly crc: number
}

/** The opaque revision token of a stored state (02 §4.4). */
export function revisionToken(storeId: string, incarnation: string, revision: number): string {
  return `postgres:${storeId}:${incarnation}:${revision}`
}

/** The incarnation and revision number a token of this store names, or `undefined`. */
export function parseRevision(storeId: string, token: string): { incarnation: string; revision: number } | undefined {
  const prefix = `postgres:${storeId}:`
  if (!token.startsWith(prefix)) return undefined
  const rest = token.slice(prefix.length)
  const colon = rest.lastIndexOf(':')
  const revision = Number(rest.slice(colon + 1))
  return colon <= 0 || !Number.isSafeInteger(revision) ? undefined : { incarnation: rest.slice(0, colon), revision }
}

/** `header checksum mismatch (…)` when the row's header text fails its checksum, else `undefined`. */
export function headerChecksumProblem(row: SessionRow): string | undefined {
  const problem = crcProblem(row.header, row.crc)
  return problem === undefined ? undefined : `header ${problem}`
}

/** The values `insertSession` binds for a new session (`$1`…`$8`). */
export function sessionValues(header: SessionHeader, incarnation: string): unknown[] {
  const text = JSON.stringify(header)
  return [header.id, header.version, header.createdAt, header.cwd ?? null, header.parentSession ?? null, text, incarnation, recordChecksum(text)]
}

/** `SESSION_CONFLICT` with the `session "<id>": ` prefix. */
export function conflict(sessionId: string, message: string, details?: Record<string, unknown>): SessionPersistenceError {
  return new SessionPersistenceError('SESSION_CONFLICT', `session "${sessionId}": ${message}`, {
    sessionId,
    ...(details === undefined ? {} : { details }),
  })
}
