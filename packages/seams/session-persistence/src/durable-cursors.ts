/**
 * The durable cursor of each session as this app's coordinator reports it, for observers (the checkpoint-policy and
 * projection invariant companions): `persistence/committed` sets an id's cursor to `toSeq`, `persistence/released`
 * forgets it, so a later writer of the id (resumed elsewhere, or deleted and created again) is judged only on what
 * it commits.
 */
import type { Context } from '@deepseek-ai/cordis'
import './events.ts'

/** Listen on `ctx` and return the live map session id → durable cursor (absent: unknown since the last release). */
export function trackDurableCursors(ctx: Context): ReadonlyMap<string, number> {
  const cursors = new Map<string, number>()
  ctx.on('persistence/committed', event => {
    cursors.set(event.sessionId, event.toSeq)
  })
  ctx.on('persistence/released', event => {
    cursors.delete(event.sessionId)
  })
  return cursors
}
