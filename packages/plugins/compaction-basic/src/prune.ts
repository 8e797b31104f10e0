/**
 * The tool-result pruner (spec 03 §2.10): shrink oversized `tool/result` content in place through the
 * content-only single-node replace of 01 §4.6, each rewrite announced by a `compaction/prune` record.
 */

import { entryState, logOf, noOpenTurnError } from '@logbook/compaction'
import type { TokenEstimator } from '@logbook/llm'
import type { ImageBlock, Session, TextBlock, ToolResultBlock } from '@logbook/session'
import type { PruneConfig } from './config.ts'

/** The limits `pruneContent` applies, in code points. */
export type PruneLimits = Pick<PruneConfig, 'thresholdChars' | 'headChars' | 'tailChars'>

/** A pruned tool-result content list and its text size before and after, in code points. */
export interface PrunedContent {
  readonly content: (TextBlock | ImageBlock)[]
  readonly charsBefore: number
  readonly charsAfter: number
}

/** One rewrite `pruneSession` made. */
export interface PrunedResult {
  readonly originalSeq: number
  readonly replacementSeq: number
  readonly callId: string
  readonly charsBefore: number
  readonly charsAfter: number
}

/** What `pruneSession` did. */
export interface PruneReport {
  readonly pruned: readonly PrunedResult[]
  readonly charsRemoved: number
}

/** The marker inserted where pruned text was removed; `removed` counts code points. */
export function pruneMarker(removed: number): string {
  return `\n\n[… ${removed} characters of tool output pruned …]\n\n`
}

function codePoints(text: string): number {
  let count = 0
  for (const _ of text) count++
  return count
}

/**
 * The content of `block` with its text cut to the first `headChars` and last `tailChars` code points of the
 * concatenated text parts, the marker inserted once in the text part where the cut begins, emptied text parts
 * dropped and other parts kept in place; `null` when the text is at most `thresholdChars` code points.
 */
export function pruneContent(block: ToolResultBlock, limits: PruneLimits): PrunedContent | null {
  const parts = block.content.map(part => (part.type === 'text' ? Array.from(part.text) : undefined))
  let total = 0
  for (const part of parts) total += part?.length ?? 0
  if (total <= limits.thresholdChars) return null
  const cutStart = limits.headChars
  const cutEnd = total - limits.tailChars
  const marker = pruneMarker(cutEnd - cutStart)
  const content: (TextBlock | ImageBlock)[] = []
  let offset = 0
  let charsAfter = 0
  block.content.forEach((part, index) => {
    const points = parts[index]
    if (points === undefined) {
      content.push(part)
      return
    }
    const from = offset
    offset += points.length
    const head = points.slice(0, Math.max(0, Math.min(points.length, cutStart - from))).join('')
    const tail = points.slice(Math.max(0, cutEnd - from)).join('')
    const hostsMarker = cutStart >= from && cutStart < offset
    const text = hostsMarker ? head + marker + tail : head + tail
    if (text === '') return
    charsAfter += codePoints(text)
    content.push({ type: 'text', text })
  })
  return { content, charsBefore: total, charsAfter }
}

/** What `pruneSession` needs besides the session. */
export interface PruneOptions {
  /** Also prune results after the newest `assistant/message` node (not yet read by the model). */
  readonly includeUnread: boolean
  readonly limits: PruneLimits
  readonly estimator: TokenEstimator
}

/**
 * Prune every oversized `tool/result` node of `session`, in surface order: for each, append `compaction/prune`
 * (priced by the original message) and then the replacing `tool/result` (id `<id>-pruned`, only the inner content
 * changed). Results after the newest `assistant/message` node are spared unless `includeUnread`. Does nothing
 * under a live compaction lock; a second pass prunes nothing.
 * @throws CompactionError `NO_OPEN_TURN` outside an open turn (nothing appended); append failures propagate.
 */
export function pruneSession(session: Session, options: PruneOptions): PruneReport {
  const state = entryState(session)
  if (state.openTurn === null) throw noOpenTurnError()
  if (state.lock !== null) return { pruned: [], charsRemoved: 0 }
  const events = logOf(session)
  const nodes = session.surface.nodes
  let newestAssistant = -1
  for (let i = nodes.length - 1; i >= 0 && newestAssistant < 0; i--) {
    if (events[nodes[i]!]!.type === 'assistant/message') newestAssistant = i
  }
  const pruned: PrunedResult[] = []
  let charsRemoved = 0
  nodes.forEach((seq, position) => {
    const event = events[seq]!
    if (event.type !== 'tool/result' || (!options.includeUnread && position > newestAssistant)) return
    const original = event.data.message
    const block = original.content[0]
    const result = pruneContent(block, options.limits)
    if (result === null) return
    const { charsBefore, charsAfter } = result
    session.append('compaction/prune', {
      shadowedRange: { start: seq, end: seq },
      shadowedSeqs: [seq],
      shadowedTokenCount: options.estimator.message(original),
      charsBefore,
      charsAfter,
    })
    const replacement = session.append('tool/result', {
      ...event.data,
      message: { ...original, id: `${original.id}-pruned` as typeof original.id, content: [{ ...block, content: result.content }] },
    }, { surfaceOp: { op: 'replace', start: seq, end: seq }, sourceEventSeqs: [seq] })
    pruned.push({ originalSeq: seq, replacementSeq: replacement.seq, callId: block.toolCallId, charsBefore, charsAfter })
    charsRemoved += charsBefore - charsAfter
  })
  return { pruned, charsRemoved }
}
