/**
 * `load(id)` (spec 02 §4.6): the resume protocol for tools outside the loop (the CLI, a viewer that must hand on a
 * balanced log) — a durable, balanced snapshot of a session, or a refusal. A session live in this process is
 * flushed first and returned when no turn is open at that point; a session another live writer holds (another
 * process, another coordinator, a handle) is refused: its open turn may be running. A stored session nobody holds
 * is opened for writing like a resume (torn tail cut, a dead holder's lock taken over), its open turn closed with
 * `interrupted` closers through the handle (durable), and released again. No path invents closers for a turn that
 * is still running.
 */

import {
  deepFreeze, openTurnClosers, type Session, type SessionEvent, type SessionHeader, type SessionId, type SessionStore,
} from '@logbook/session'
import { isSessionPersistenceError, SessionPersistenceError } from './errors.ts'
import type { OperationOptions, SessionHandle } from './types.ts'

/** A durable, balanced snapshot of a session. */
export interface LoadedSession {
  readonly header: SessionHeader
  /** Every stored event, balanced: no turn is open in it. */
  readonly events: readonly SessionEvent[]
  readonly inheritedEventCount: number
  /** The `interrupted` closers this load appended for a turn a dead writer left open (`[]` when none). */
  readonly appended: readonly SessionEvent[]
}

/** What `load` needs of the seam: its own public operations. */
export interface LoadTarget {
  open(id: string, mode: 'write', opts?: OperationOptions): Promise<SessionHandle>
}

function openTurnOf(events: readonly SessionEvent[]): number | undefined {
  const end = openTurnClosers(events, { kind: 'interrupted' }).at(-1) as { readonly data: { readonly turn: number } } | undefined
  return end?.data.turn
}

function busy(id: string, why: string, cause?: unknown): SessionPersistenceError {
  return new SessionPersistenceError('SESSION_BUSY', `session "${id}": ${why}`, { sessionId: id, ...(cause === undefined ? {} : { cause }) })
}

/** A live session of this process: wait until its log is durable, then return it unless a turn is open. */
async function loadLive(sessions: SessionStore, session: Session, signal: AbortSignal | undefined): Promise<LoadedSession> {
  const target = session.seq
  await sessions.flush(session)
  if (signal?.aborted) throw signal.reason
  const events = session.events.slice(0, target)
  const turn = openTurnOf(events)
  if (turn !== undefined) throw busy(session.id, `turn ${turn} is open in this process; load it after that turn has ended`)
  return Object.freeze({ header: session.header, events: Object.freeze(events), inheritedEventCount: session.inheritedEventCount, appended: Object.freeze([]) })
}

/**
 * A durable, balanced snapshot of `id` (see the module comment).
 * @throws `SESSION_BUSY` (a turn open in this process; another live writer holds the session), the errors of
 * `open(id, 'write')` (`SESSION_NOT_FOUND`, `SESSION_CORRUPT`, `SESSION_FORMAT_UNSUPPORTED`, `INVALID_ARGUMENT`, …),
 * a failed flush's or append's error; the signal's reason when aborted.
 */
export async function loadSession(target: LoadTarget, sessions: SessionStore | undefined, id: string, opts: OperationOptions = {}): Promise<LoadedSession> {
  const { signal } = opts
  if (signal?.aborted) throw signal.reason
  const live = sessions?.get(id as SessionId)
  if (live !== undefined) return loadLive(sessions!, live, signal)
  let handle: SessionHandle
  try {
    handle = await target.open(id, 'write', opts)
  } catch (error) {
    if (isSessionPersistenceError(error, 'SESSION_LOCKED')) {
      throw busy(id, 'another live writer holds it, so an open turn may be running; load it once that writer has released it', error)
    }
    throw error
  }
  try {
    const events = await handle.read(0, opts)
    const closers = openTurnClosers(events, { kind: 'interrupted' })
    if (closers.length > 0) await handle.append(closers, opts)
    return Object.freeze({
      header: handle.header,
      events: deepFreeze([...events, ...closers]),
      inheritedEventCount: handle.inheritedEventCount,
      appended: deepFreeze(closers),
    })
  } finally {
    await handle.close()
  }
}
