/**
 * The `./invariant` companion of `@logbook/session-persistence-postgres` (spec 02 §8): after every
 * `persistence/committed` of this backend, one query checks the committed state is stored — the session row's
 * `revision` is the commit's, its `next_seq` equals `toSeq` and the lease names the committing owner. The query runs
 * after the commit, so a later commit may already have moved the row: then the check is skipped, never guessed.
 * A violation is logged at error level, not vetoed.
 */
import type { Context } from '@deepseek-ai/cordis'
import type { PersistenceCommittedEvent } from '@logbook/session-persistence'
import type { CommitState } from './types.ts'

/** Plugin name of the companion. */
export const name = 'session-persistence-postgres-invariant'
/** The services it observes. */
export const inject = ['sessions', 'sessionPersistence']

interface CommitStateSource {
  commitState(id: string): Promise<CommitState | undefined>
}

const hasCommitState = (value: unknown): value is CommitStateSource =>
  typeof (value as { commitState?: unknown } | null)?.commitState === 'function'

/** The revision number of a `postgres:<storeId>:<incarnation>:<revision>` token. */
function revisionOf(token: string): number | undefined {
  const match = /^postgres:[^:]*:[^:]+:(\d+)$/.exec(token)
  return match === null ? undefined : Number(match[1])
}

/** The violations one commit shows against the stored state read after it (empty when consistent or moved on). */
export function commitViolations(event: PersistenceCommittedEvent, state: CommitState | undefined): string[] {
  const id = event.sessionId
  const revision = revisionOf(event.revision)
  if (revision === undefined) return [`session "${id}": commit revision ${event.revision} is not a PostgreSQL revision`]
  if (state === undefined) return [`session "${id}": committed up to seq ${event.toSeq} but no session row is stored`]
  if (state.revision < revision) return [`session "${id}": stored revision ${state.revision} is behind the committed revision ${revision}`]
  if (state.revision > revision) return []
  const problems: string[] = []
  if (state.nextSeq !== event.toSeq) problems.push(`session "${id}": stored next_seq ${state.nextSeq} ≠ committed toSeq ${event.toSeq}`)
  if (state.ownerId !== event.ownerId) {
    problems.push(`session "${id}": lease names owner ${String(state.ownerId)}, not the committing owner ${event.ownerId}`)
  }
  return problems
}

/** Register the post-commit check; disposing the plugin removes the listener. */
export function apply(ctx: Context): void {
  const logger = ctx.logger(name)
  ctx.on('persistence/committed', (event) => {
    const persistence = ctx.get('sessionPersistence') as unknown
    if (!hasCommitState(persistence)) return
    persistence.commitState(event.sessionId).then(
      state => {
        for (const problem of commitViolations(event, state)) logger.error(`${name}: ${problem}`)
      },
      (error: unknown) => logger.error(`${name}: session "${event.sessionId}": cannot read the committed state: ${(error as Error).message}`),
    )
  })
}
