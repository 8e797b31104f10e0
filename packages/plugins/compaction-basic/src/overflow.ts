/**
 * Overflow recovery (spec 03 §2.8): an `agent/request-error` waterfall listener that, on
 * `CONTEXT_WINDOW_EXCEEDED`, prunes (unread results included) and compacts everything but the newest node, then
 * asks the loop to retry the request.
 */

import type { RequestErrorDecision, RequestErrorPayload } from '@logbook/agent-loop'
import type { Session, SessionEvent } from '@logbook/session'
import { containFailure } from './failures.ts'
import type { CompactionHost } from './host.ts'

/** Recoveries made in each session's current step; reset by `step/start` and `assistant/message`. */
export class OverflowCounter {
  private readonly counts = new WeakMap<Session, number>()

  /** Feed every committed event (a `session/event` listener). */
  observe(session: Session, event: SessionEvent): void {
    if (event.type === 'step/start' || event.type === 'assistant/message') this.counts.delete(session)
  }

  /** Recoveries so far in the current step. */
  used(session: Session): number {
    return this.counts.get(session) ?? 0
  }

  /** Count one recovery. */
  add(session: Session): void {
    this.counts.set(session, this.used(session) + 1)
  }
}

/**
 * The `agent/request-error` listener. It acts only on `CONTEXT_WINDOW_EXCEEDED` with the signal live and fewer
 * than `maxOverflowRetries` recoveries in the step; it resolves `{ kind: 'retry' }` iff the signal is still live
 * and the replace generation advanced (a prune alone counts), else continues the chain so the original error
 * stands. `COMPACTION_FAILED` is rethrown; other failures are warned.
 */
export async function onRequestError(
  host: CompactionHost, counter: OverflowCounter, payload: RequestErrorPayload,
  next: () => RequestErrorDecision | Promise<RequestErrorDecision>,
): Promise<RequestErrorDecision> {
  const { session, signal, agent } = payload
  if (payload.error.code !== 'CONTEXT_WINDOW_EXCEEDED' || signal.aborted) return next()
  if (counter.used(session) >= host.config.maxOverflowRetries) return next()
  counter.add(session)
  const generation = session.surface.replaceGeneration
  try {
    if (host.config.prune.enabled) host.prune(session, true)
    const tools = session.requestHeader()?.tools
    const span = host.service.selectSpan(session, host.service.measure(session, tools), 0)
    if (span !== null) {
      await host.service.runRegion({
        session, span, owner: 'turn', trigger: 'overflow', signal,
        summarize: host.summarizer(session, agent.options),
      })
    }
  } catch (error) {
    containFailure(host, error, message => `overflow recovery failed: ${message}`)
  }
  if (!signal.aborted && session.surface.replaceGeneration !== generation) return { kind: 'retry' }
  return next()
}
