/**
 * An imported compaction, written exactly as the compaction plugin writes one (03 §2.1, §2.6): `compaction/start`,
 * `compaction/summary`, the checkpoint `user/message` (`summaryNodeMessage`) whose surface `replace` swaps the
 * compacted span for the framed summary, then `compaction/end`. The span starts after a system head and ends before
 * the first item the source kept (all of the surface when it kept none), moved head-ward to a balanced cut so no
 * result loses its call. The originals stay in the log.
 */

import { summaryNodeMessage, type CompactionTrigger } from '@logbook/compaction'
import { defaultTokenEstimator } from '@logbook/llm'
import { deriveEventMessage, type SessionEvent } from '@logbook/session'
import type { EventBuilder } from './builder.ts'
import { stableUuid } from './content.ts'
import type { CompactionItem } from './types.ts'

/** Marks `maxTokens` and `instructionVersion` of a summary that Logbook's summariser did not write. */
export const IMPORTED_SUMMARY_VERSION = 0

/** The price of one event as a surface node (03 §2.4 with the default estimator): 0 when it derives no message. */
function priceOf(event: SessionEvent): number {
  const message = deriveEventMessage(event)
  return message === null ? 0 : defaultTokenEstimator.message(message)
}

/** The position of the first surface node the source kept, scanning after the head. */
function keptPosition(builder: EventBuilder, item: CompactionItem, head: number): number {
  const nodes = builder.surface.list()
  if (item.keepFromKey === undefined) return nodes.length
  const keepSeq = builder.keySeqs.get(item.keepFromKey)
  if (keepSeq === undefined) {
    builder.source.note(`compaction ${item.key} keeps entry ${item.keepFromKey}, which is not on its path; it replaces the whole history`)
    return nodes.length
  }
  // A checkpoint's seq is later than what it summarised, so only append-origin nodes say where kept content begins.
  for (let p = head; p < nodes.length; p++) if (nodes[p]!.appendOrigin && nodes[p]!.seq >= keepSeq) return p
  return nodes.length
}

/** Append the compaction bracket of `item` to `builder` (no step may be open). */
export function appendCompaction(builder: EventBuilder, item: CompactionItem): void {
  const nodes = builder.surface.list()
  const events = builder.events
  const head = nodes.length > 0 && events[nodes[0]!.seq]!.type === 'system/message' ? 1 : 0
  let cut = keptPosition(builder, item, head)
  while (cut > head && !builder.surface.balancedAt(cut)) cut--
  if (cut <= head) {
    builder.source.note(`compaction ${item.key} had nothing before it to replace and was skipped`)
    builder.source.skip('compaction with nothing to replace', item.key)
    return
  }
  const shadowedSeqs = nodes.slice(head, cut).map(node => node.seq)
  const compactionId = stableUuid(builder.source.idSeed, 'compaction', item.key)
  const turn = builder.openTurn
  const trigger: CompactionTrigger = item.trigger === 'manual' ? 'manual' : 'pressure'
  const summary = item.summary ?? 'The conversation was compacted; the source transcript holds no summary text.'
  const checkpoint = summaryNodeMessage(compactionId, summary)
  const shadowedTokenCount = shadowedSeqs.reduce((sum, seq) => sum + priceOf(events[seq]!), 0)
  const summaryTokenCount = defaultTokenEstimator.message(checkpoint)
  const { provider, model } = builder.model ?? { provider: builder.source.toolName, model: 'unknown' }
  const startSeq = builder.push('compaction/start', { compactionId, turn, trigger })
  const summarySeq = builder.push('compaction/summary', {
    compactionId, summary, shadowedRange: { start: shadowedSeqs[0]!, end: shadowedSeqs.at(-1)! }, shadowedSeqs,
    shadowedTokenCount, summaryTokenCount, provider, model,
    maxTokens: IMPORTED_SUMMARY_VERSION, instructionVersion: IMPORTED_SUMMARY_VERSION,
  })
  builder.keySeqs.set(item.key, events.length)
  builder.push('user/message', checkpoint, {
    surfaceOp: { op: 'replace', start: shadowedSeqs[0]!, end: shadowedSeqs.at(-1)! },
    sources: [startSeq, summarySeq, ...shadowedSeqs],
  })
  builder.push('compaction/end', { compactionId, turn })
}
