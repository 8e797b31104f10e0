/**
 * The `./invariant` companion of `@logbook/session-checkpoint-policy` (spec 02 §8). It observes after commit and logs
 * each violation at error level as `session-checkpoint-policy-invariant: <detail>`: at each `checkpoint/passed` the
 * session's durable cursor (from `persistence/committed`) must be above `requiredSeq`, and for a tool body the
 * `tool/call` of that call must be below the cursor. A `persistence/released` forgets the id's cursor (0 until the
 * next commit).
 */

import type { Context } from '@deepseek-ai/cordis'
import type { SessionEvent, SessionId } from '@logbook/session'
import { trackDurableCursors } from '@logbook/session-persistence'
import type {} from './index.ts'
import type { CheckpointPassedEvent } from './types.ts'

/** Plugin name. */
export const name = 'session-checkpoint-policy-invariant'
/** Observed services. */
export const inject = ['sessions', 'sessionPersistence']

/** The violations of one `checkpoint/passed` given the durable cursor and the live log (pure; exported for tests). */
export function passedViolations(
  event: CheckpointPassedEvent, cursor: number, events: readonly SessionEvent[] | undefined,
): string[] {
  const problems: string[] = []
  const id = event.sessionId
  if (cursor <= event.requiredSeq) {
    problems.push(`session "${id}": checkpoint/passed (${event.point}) requires seq ${event.requiredSeq} durable; the durable cursor is ${cursor}`)
  }
  if (event.point === 'tool-body' && events !== undefined) {
    const call = events.findLast(e => e.type === 'tool/call' && e.data.callId === event.callId)
    if (call === undefined) problems.push(`session "${id}": checkpoint/passed for call ${String(event.callId)} has no tool/call`)
    else if (call.seq >= cursor) {
      problems.push(`session "${id}": tool/call of ${String(event.callId)} at seq ${call.seq} is not below the durable cursor ${cursor}`)
    }
  }
  return problems
}

/** Track durable cursors and check every `checkpoint/passed`. */
export function apply(ctx: Context): void {
  const logger = ctx.logger(name)
  const cursors = trackDurableCursors(ctx)
  ctx.on('checkpoint/passed', event => {
    const events = ctx.sessions.get(event.sessionId as SessionId)?.events
    for (const problem of passedViolations(event, cursors.get(event.sessionId) ?? 0, events)) logger.error(`${name}: ${problem}`)
  })
}
