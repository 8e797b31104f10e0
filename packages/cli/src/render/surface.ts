/**
 * What the model would see next (`show --surface`, spec 03 §6.2): the surface nodes in order — the system
 * prompt, messages, tool calls and results, and compaction summaries where they replaced a span.
 */

import { deriveEventMessage, foldSurface, type SessionEvent } from '@logbook/session'
import { isCompactionCheckpoint } from '@logbook/compaction'
import { labelled, resultText, textOf } from './text.ts'

/** The surface of `events` as labelled lines. */
export function surfaceLines(events: readonly SessionEvent[]): string[] {
  const { nodes } = foldSurface(events)
  const lines: string[] = []
  for (const seq of nodes) {
    const event = events[seq]!
    const message = deriveEventMessage(event)
    if (message === null) continue
    switch (message.role) {
      case 'system':
        lines.push(...labelled('system>', textOf(message.content)))
        break
      case 'assistant': {
        const text = textOf(message.content)
        if (text !== '') lines.push(...labelled('model>', text))
        for (const block of message.content) {
          if (block.type === 'refusal') lines.push(...labelled('refused>', block.text))
          else if (block.type === 'tool-call') lines.push(`tool> ${block.name}(${block.arguments})`)
        }
        break
      }
      case 'user':
        if (message.source.kind === 'tool') lines.push(...labelled('result>', resultText(message)))
        else if (isCompactionCheckpoint(event)) lines.push(...labelled('summary>', textOf(message.content)))
        else lines.push(...labelled(message.source.kind === 'user' ? 'you>' : 'user>', textOf(message.content)))
        break
    }
  }
  return lines
}
