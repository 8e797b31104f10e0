/**
 * The `./invariant` companion of `@logbook/session-projection` (spec 03 §8). Folds carry no event relation, but one
 * relation does hold at runtime: a projection checkpoint is never ahead of the durable log. From
 * `persistence/committed` it tracks each session's durable cursor, and at every `projection/checkpointed` it checks
 * that the checkpoint's `seq` is below that cursor and that its anchor copies the live session's event at `seq`.
 * It observes after the fact, so a violation is logged at error level as `session-projection-invariant: <detail>`.
 */
import type { Context } from '@deepseek-ai/cordis'
import type { SessionId } from '@logbook/session'
import { trackDurableCursors } from '@logbook/session-persistence'
import './events.ts'
import type { ProjectionCheckpointedEvent } from './types.ts'

/** Plugin name. */
export const name = 'session-projection-invariant'
/** Observed services. */
export const inject = ['sessions']

/** The violations of one checkpoint write, given the durable cursor and the live event at its seq (pure). */
export function checkpointViolations(
  event: ProjectionCheckpointedEvent,
  cursor: number | undefined,
  live: { readonly time: number; readonly type: string } | null | undefined,
): string[] {
  const problems: string[] = []
  const id = event.sessionId
  if (cursor !== undefined && event.seq >= cursor) {
    problems.push(`session "${id}": projection checkpoint at seq ${event.seq} is not below the durable cursor ${cursor}`)
  }
  if (live === null) {
    problems.push(`session "${id}": projection checkpoint at seq ${event.seq} names no event of the live log`)
  } else if (live !== undefined && (live.time !== event.anchor.time || live.type !== event.anchor.type)) {
    problems.push(`session "${id}": projection checkpoint anchor ${event.anchor.type}@${event.anchor.time} `
      + `does not match the event at seq ${event.seq} (${live.type}@${live.time})`)
  }
  return problems
}

/** Track durable cursors and check every checkpoint write; log violations at error level. */
export function apply(ctx: Context): void {
  const logger = ctx.logger(name)
  const cursors = trackDurableCursors(ctx)
  ctx.on('projection/checkpointed', event => {
    const session = ctx.sessions.get(event.sessionId as SessionId)
    const live = session === undefined ? undefined : (session.events[event.seq] ?? null)
    for (const problem of checkpointViolations(event, cursors.get(event.sessionId), live)) logger.error(`${name}: ${problem}`)
  })
}
