/**
 * Manual and explicit compaction (spec 03 §2.8): `compactNow` on an idle agent (owner `null`, maintenance status,
 * flush after closing) and `compactRegion` on a chosen span inside the agent's open turn.
 */

import type { AgentHandle } from '@logbook/agent-loop'
import {
  CompactionError, ManualCompactionError, cancelledError, type CompactionResult, type CompactNowOptions,
  type CompactRegionOptions, type ManualCompactionErrorCode,
} from '@logbook/compaction'
import type { CompactionHost } from './host.ts'

/** The manual form of a compaction failure (same code, message and cause); other values pass unchanged. */
function asManual(error: unknown): unknown {
  if (error instanceof ManualCompactionError || !(error instanceof CompactionError)) return error
  return new ManualCompactionError(error.code as ManualCompactionErrorCode, error.message,
    'cause' in error ? { cause: error.cause } : undefined)
}

function busy(message: string): ManualCompactionError {
  return new ManualCompactionError('BUSY', message)
}

/** One signal that aborts when any of `signals` does (with that signal's reason). */
function anySignal(signals: readonly (AbortSignal | undefined)[]): AbortSignal {
  return AbortSignal.any(signals.filter((signal): signal is AbortSignal => signal !== undefined))
}

/**
 * Compact an idle agent's session now: `null` (nothing written) when no span is worth compacting. The agent is in
 * `maintenance` while this runs, so `send()` queues and `agent.cancel()` aborts; a lock that could not be closed is
 * handed to the agent so its next `send` rejects `SESSION_NEEDS_RESUME`. Never prunes.
 * @throws ManualCompactionError `CANCELLED`, `BUSY` (not idle, or a live lock), `CORRUPT_SURFACE`, `CHANGED`,
 * `SUMMARY_FAILED`, `COMMIT_FAILED`, `COMPACTION_FAILED`, `PERSISTENCE_FAILED`.
 */
export async function compactNow(host: CompactionHost, agent: AgentHandle, options: CompactNowOptions = {}): Promise<CompactionResult | null> {
  const { signal } = options
  if (signal?.aborted) throw asManual(cancelledError(signal))
  if (agent.status !== 'idle') throw busy(`agent "${agent.id}" is ${agent.status}, not idle`)
  const { session } = agent
  const lock = host.service.entryState(session).lock
  if (lock !== null) throw busy(`compaction/start at seq ${lock.seq} was never closed; resume the session to clear it`)
  const lease = agent.beginMaintenance()
  if (lease === undefined) throw busy(`agent "${agent.id}" is ${agent.status}, not idle`)
  let orphaned: number | undefined
  try {
    const measurement = host.service.measure(session, session.requestHeader()?.tools)
    const span = host.service.selectSpan(session, measurement, host.config.manualRetainTokens)
    if (span === null) return null
    return await host.service.runRegion({
      session, span, owner: 'none', trigger: 'manual', flushAfter: true,
      signal: anySignal([signal, lease.signal]),
      summarize: host.summarizer(session, agent.options),
    })
  } catch (error) {
    if (error instanceof CompactionError && error.code === 'COMPACTION_FAILED') {
      orphaned = host.service.entryState(session).lock?.seq
    }
    throw asManual(error)
  } finally {
    lease.end(orphaned)
  }
}

/**
 * Compact the span `start`…`end` of the agent's session inside its open turn (owner = that turn, trigger
 * `explicit`). A caller inside a loop hook must rethrow `COMPACTION_FAILED` so the loop ends the turn.
 * @throws CompactionError with any §2.6 code.
 */
export function compactRegion(host: CompactionHost, agent: AgentHandle, options: CompactRegionOptions): Promise<CompactionResult> {
  const { session } = agent
  return host.service.runRegion({
    session, span: { start: options.start, end: options.end }, owner: 'turn', trigger: 'explicit',
    summarize: host.summarizer(session, agent.options),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  })
}
