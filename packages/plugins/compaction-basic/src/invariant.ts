/**
 * The pruning companion (`@logbook/compaction-basic/invariant`, spec 03 §8): an optional Cordis plugin that
 * vetoes, before commit, a `compaction/prune` that does not name exactly one current `tool/result` node.
 */

import type { Context } from '@deepseek-ai/cordis'
import type {} from '@logbook/compaction'
import { SessionInvariantError, type Session, type SessionEvent } from '@logbook/session'

/** The plugin name. */
export const name = 'compaction-basic-invariant'
/** The companion observes the session store. */
export const inject = ['sessions']

/** The detail of the rule a `compaction/prune` candidate breaks, or undefined. */
function violation(session: Session, event: SessionEvent): string | undefined {
  if (event.type !== 'compaction/prune') return undefined
  const { shadowedSeqs, shadowedRange } = event.data
  if (!Array.isArray(shadowedSeqs) || shadowedSeqs.length !== 1) {
    return `compaction/prune must name exactly one node, got ${Array.isArray(shadowedSeqs) ? shadowedSeqs.length : 'none'}`
  }
  const seq = shadowedSeqs[0]!
  if (shadowedRange?.start !== seq || shadowedRange?.end !== seq) {
    return `compaction/prune shadowedRange must be {start: ${seq}, end: ${seq}}`
  }
  if (!session.surface.nodes.includes(seq)) return `compaction/prune names seq ${seq}, which is not a current surface node`
  const type = session.events[seq]!.type
  if (type !== 'tool/result') return `compaction/prune names seq ${seq}, a ${type}, not a tool/result`
  return undefined
}

/**
 * Veto every `compaction/prune` append that does not name exactly one current `tool/result` node; the check is
 * stateless (it reads the session's current surface), so nothing is replayed at load.
 */
export function apply(ctx: Context): void {
  ctx.sessions.addCheck((session, candidate) => {
    const detail = violation(session, candidate)
    if (detail !== undefined) throw new SessionInvariantError(session.id, detail)
  })
}
