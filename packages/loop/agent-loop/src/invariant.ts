/**
 * The loop's invariant companion (`@logbook/agent-loop/invariant`, spec 03 §8): a pre-commit check vetoing an
 * `assistant/message` that cites anything but `assistant/chunk`s of its turn and step, an appended non-synthetic
 * `tool/result` that does not cite exactly its call's `tool/call` of the same step, and a `request/header` with
 * reason `initial` after an earlier header.
 */

import type { Context } from '@deepseek-ai/cordis'
import { isAppendSurfaceEvent, SessionInvariantError, type Session, type SessionEvent } from '@logbook/session'

/** The plugin name. */
export const name = 'agent-loop-invariant'
/** The companion observes the session store. */
export const inject = ['sessions']

/** The first violation `event` would cause on `session` (whose log does not hold it yet), or `undefined`. */
export function loopViolation(session: Session, event: SessionEvent): string | undefined {
  const events = session.events
  switch (event.type) {
    case 'assistant/message': {
      if (!isAppendSurfaceEvent(event)) return undefined
      const { turn, step } = event.data
      for (const seq of event.sourceEventSeqs ?? []) {
        const cited = events[seq]
        if (cited?.type !== 'assistant/chunk' || cited.data.turn !== turn || cited.data.step !== step) {
          return `assistant/message at seq ${event.seq} cites seq ${seq}, which is not an assistant/chunk of turn ${turn}/step ${step}`
        }
      }
      return undefined
    }
    case 'tool/result': {
      if (!isAppendSurfaceEvent(event)) return undefined
      const { turn, step, message, error } = event.data
      const callId = message.source.callId
      const sources = event.sourceEventSeqs
      if (sources === undefined && error?.code === 'TOOL_NOT_STARTED') return undefined
      const cited = sources?.length === 1 ? events[sources[0]!] : undefined
      if (cited?.type !== 'tool/call' || cited.data.callId !== callId || cited.data.turn !== turn || cited.data.step !== step) {
        return `tool/result for ${callId} at seq ${event.seq} must cite exactly its tool/call of turn ${turn}/step ${step}`
      }
      return undefined
    }
    case 'request/header':
      if (event.data.reason === 'initial' && session.requestHeader() !== undefined) {
        return `request/header at seq ${event.seq} has reason initial after an earlier header`
      }
      return undefined
    default:
      return undefined
  }
}

/** Register the check; disposing the plugin removes it. */
export function apply(ctx: Context): void {
  ctx.sessions.addCheck((session, event) => {
    const detail = loopViolation(session, event)
    if (detail !== undefined) throw new SessionInvariantError(session.id, detail)
  })
}
