/**
 * The `./invariant` companion of `@logbook/session-persistence-sqlite` (spec 02 §8): after every
 * `persistence/committed` of the SQLite backend, one read-only query checks that the session row's `next_seq`
 * equals `toSeq`, that its `revision` column grew by exactly 1 (and is the commit's revision), and that the lease row
 * names the committing owner. It observes after commit, so a violation is logged at error level, not vetoed.
 */

import type { Context } from '@deepseek-ai/cordis'
import type { PersistenceCommittedEvent } from '@logbook/session-persistence'
import type { CommitState } from './types.ts'

/** Plugin name of the companion. */
export const name = 'session-persistence-sqlite-invariant'
/** The services it observes. */
export const inject = ['sessions', 'sessionPersistence']

interface CommitStateSource {
  commitState(id: string): CommitState | undefined
}

const hasCommitState = (value: unknown): value is CommitStateSource =>
  typeof (value as { commitState?: unknown } | null)?.commitState === 'function'

/** The incarnation and revision number encoded in a `sqlite:<storeId>:<incarnation>:<revision>` token. */
function parseRevision(token: string): { incarnation: string; revision: number } | undefined {
  const match = /^sqlite:[^:]*:([^:]+):(\d+)$/.exec(token)
  return match === null ? undefined : { incarnation: match[1]!, revision: Number(match[2]) }
}

/**
 * The violations one commit shows against the stored state (empty when consistent). `previous` is the revision
 * this companion last saw committed for the same id and incarnation.
 */
export function commitViolations(
  event: PersistenceCommittedEvent,
  state: CommitState | undefined,
  previous: number | undefined,
): string[] {
  const id = event.sessionId
  const token = parseRevision(event.revision)
  if (token === undefined) return [`session "${id}": commit revision ${event.revision} is not a SQLite revision`]
  if (state === undefined) return [`session "${id}": committed up to seq ${event.toSeq} but no session row is stored`]
  const problems: string[] = []
  if (state.nextSeq !== event.toSeq) problems.push(`session "${id}": stored next_seq ${state.nextSeq} ≠ committed toSeq ${event.toSeq}`)
  if (state.revision !== token.revision) {
    problems.push(`session "${id}": stored revision ${state.revision} ≠ committed revision ${token.revision}`)
  }
  if (previous !== undefined && token.revision !== previous + 1) {
    problems.push(`session "${id}": revision went from ${previous} to ${token.revision}, not up by exactly 1`)
  }
  if (state.ownerId !== event.ownerId) {
    problems.push(`session "${id}": lease names owner ${String(state.ownerId)}, not the committing owner ${event.ownerId}`)
  }
  return problems
}

/** Register the post-commit check; disposing the plugin removes the listener and forgets the traces. */
export function apply(ctx: Context): void {
  const logger = ctx.logger(name)
  const seen = new Map<string, { incarnation: string; revision: number }>()
  ctx.on('persistence/committed', (event) => {
    const persistence = ctx.sessionPersistence as unknown
    if (!hasCommitState(persistence)) return
    const token = parseRevision(event.revision)
    const last = seen.get(event.sessionId)
    const previous = token !== undefined && last?.incarnation === token.incarnation ? last.revision : undefined
    let state: CommitState | undefined
    try {
      state = persistence.commitState(event.sessionId)
    } catch (error) {
      logger.error(`${name}: session "${event.sessionId}": cannot read the committed state: ${(error as Error).message}`)
      return
    }
    for (const problem of commitViolations(event, state, previous)) logger.error(`${name}: ${problem}`)
    if (token !== undefined) seen.set(event.sessionId, token)
  })
}
