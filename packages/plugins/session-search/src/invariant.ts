/**
 * The `./invariant` companion of `@logbook/session-search` (spec 04 §7): the index mirrors the store, so a step
 * indexing a live session of this process never goes past that session's durable cursor (from
 * `persistence/committed`), a step never ends before it starts, and a reset step starts at seq 0. It observes after
 * the fact, so a violation is logged at error level as `session-search-invariant: <detail>`.
 */
import type { Context } from '@deepseek-ai/cordis'
import { trackDurableCursors } from '@logbook/session-persistence'
import './events.ts'
import type { SearchIndexedEvent } from './types.ts'

/** Plugin name. */
export const name = 'session-search-invariant'
/** Observed services. */
export const inject = ['sessions']

/** The violations of one indexing step, given the session's durable cursor in this process (pure). */
export function indexedViolations(event: SearchIndexedEvent, cursor: number | undefined): string[] {
  const problems: string[] = []
  const id = event.sessionId
  if (event.toSeq < event.fromSeq) problems.push(`session "${id}": indexing step ends at seq ${event.toSeq} before it starts (${event.fromSeq})`)
  if (event.reset && event.fromSeq !== 0) problems.push(`session "${id}": a reset indexing step starts at seq ${event.fromSeq}, not 0`)
  if (event.source === 'live' && cursor !== undefined && event.toSeq > cursor) {
    problems.push(`session "${id}": indexed up to seq ${event.toSeq}, past the durable cursor ${cursor}`)
  }
  return problems
}

/** Track durable cursors and check every indexing step; log violations at error level. */
export function apply(ctx: Context): void {
  const logger = ctx.logger(name)
  const cursors = trackDurableCursors(ctx)
  ctx.on('search/indexed', event => {
    for (const problem of indexedViolations(event, cursors.get(event.sessionId))) logger.error(`${name}: ${problem}`)
  })
}
