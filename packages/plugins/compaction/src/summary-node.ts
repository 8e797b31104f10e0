/**
 * The summary node (spec 03 §2.1, §2.9, whose public names call it the compaction checkpoint): the `user/message`
 * that replaces a compacted span, carrying the framed summary, and the test that recognises one. Inside the code
 * "checkpoint" is left to the durable flush of `session-checkpoint-policy`.
 */

import { MessageId, type SessionEvent, type UserMessage } from '@logbook/session'

/** The sentence that introduces every framed summary (§2.9). */
export const CHECKPOINT_PREAMBLE = 'Earlier conversation was compacted. The block below is an automatically generated '
  + 'summary of it; treat it as background and continue without commenting on it.'

/** The summary node's source, exactly these keys (01 §2.3). */
export const SUMMARY_NODE_SOURCE = Object.freeze({ kind: 'plugin', plugin: 'compaction' } as const)

/** The id prefix of every summary node. */
export const SUMMARY_NODE_ID_PREFIX = 'compaction-'

/**
 * The checkpoint text for `summary`: the preamble, a blank line, then the summary inside
 * `<compacted-summary>` tags, each on its own line.
 */
export function frameSummary(summary: string): string {
  return `${CHECKPOINT_PREAMBLE}\n\n<compacted-summary>\n${summary}\n</compacted-summary>`
}

/** The summary node of bracket `compactionId`: id `compaction-<id>`, one text block with the framed summary. */
export function summaryNodeMessage(compactionId: string, summary: string): UserMessage {
  return {
    id: MessageId(`${SUMMARY_NODE_ID_PREFIX}${compactionId}`),
    role: 'user',
    source: SUMMARY_NODE_SOURCE,
    content: [{ type: 'text', text: frameSummary(summary) }],
  }
}

/** True iff `event` is a compaction checkpoint: a `user/message` with the compaction source and id prefix. */
export function isCompactionCheckpoint(event: SessionEvent | undefined): boolean {
  if (event?.type !== 'user/message') return false
  const { source, id } = event.data
  return source.kind === 'plugin' && (source as { plugin?: unknown }).plugin === SUMMARY_NODE_SOURCE.plugin
    && id.startsWith(SUMMARY_NODE_ID_PREFIX)
}
