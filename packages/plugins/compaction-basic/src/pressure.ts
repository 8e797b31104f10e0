/**
 * Automatic compaction on pressure (spec 03 §2.7): an `agent/pre-step` waterfall listener that prunes and
 * compacts a session above its threshold before the next `step/start`.
 */

import type { PreStepPayload } from '@logbook/agent-loop'
import { containFailure } from './failures.ts'
import type { CompactionHost } from './host.ts'

/** `floor(capacity × thresholdRatio)` and the retention for one provider/model pair, or `undefined` (warned). */
function budget(host: CompactionHost, provider: string, model: string): { threshold: number; retain: number } | undefined {
  const pair = `${provider}/${model}`
  // Keyed by the exact pair: "a/b" + "c" and "a" + "b/c" print alike but are different models.
  const key = JSON.stringify([provider, model])
  const capacity = host.capacity(provider, model)
  if (capacity === undefined) {
    host.warnOnce(`capacity:${key}`, `no context window known for ${pair}; automatic compaction is off for it`)
    return undefined
  }
  const { config } = host
  const threshold = Math.floor(capacity * config.thresholdRatio)
  const retain = config.retainTokens ?? Math.floor(capacity * config.retainRatio!)
  if (retain >= threshold) {
    host.warnOnce(`retain:${key}`, `retention of ${retain} tokens is not below the compaction threshold of ${threshold} `
      + `tokens for ${pair}; automatic compaction is off for it`)
    return undefined
  }
  return { threshold, retain }
}

/** Items 4–6: prune, then up to `1 + compactionRetries` regions, until the session is below `threshold`. */
async function relieve(host: CompactionHost, payload: PreStepPayload, threshold: number, retain: number): Promise<void> {
  const { session, request, signal } = payload
  const measure = (): number => host.service.measure(session, request.tools).totalTokens
  if (measure() < threshold) return
  const lock = host.service.entryState(session).lock
  if (lock !== null) {
    host.warn(`automatic compaction skipped: compaction already in progress (compaction/start at seq ${lock.seq})`)
    return
  }
  if (host.config.prune.enabled) {
    host.prune(session, false)
    if (measure() < threshold) return
  }
  let attempts = 0
  for (let i = 0; i <= host.config.compactionRetries; i++) {
    const span = host.service.selectSpan(session, host.service.measure(session, request.tools), retain)
    if (span === null) break
    attempts++
    await host.service.runRegion({
      session, span, owner: 'turn', trigger: 'pressure', signal,
      summarize: host.summarizer(session, request.config),
      ...(request.system === undefined ? {} : { system: request.system }),
      tools: request.tools,
    })
    if (measure() < threshold) return
  }
  host.warn(`still above threshold after ${attempts} compaction attempts; continuing the turn`)
}

/**
 * The `agent/pre-step` listener. An aborted signal, an unknown capacity or a session below its threshold only
 * continue the chain; `COMPACTION_FAILED` is rethrown without `next()` (the loop ends the turn); any other failure
 * but `CANCELLED` is warned. Otherwise `next()` is called exactly once, outside the compaction's error handling.
 */
export async function onPreStep(host: CompactionHost, payload: PreStepPayload, next: () => unknown): Promise<unknown> {
  if (!payload.signal.aborted) {
    const { provider, model } = payload.request.config
    const limits = budget(host, provider, model)
    if (limits !== undefined) {
      try {
        await relieve(host, payload, limits.threshold, limits.retain)
      } catch (error) {
        containFailure(host, error, message => `automatic compaction failed: ${message}; continuing the turn`)
      }
    }
  }
  return next()
}
