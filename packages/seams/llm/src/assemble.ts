/**
 * Assembling the assistant message of one attempt from its stream chunks (spec 03 §3.2, §5.5).
 */

import type { AssistantBlock, AssistantMessage, MessageId, StreamChunk } from '@logbook/session'
import type { ModelSource } from './types.ts'

/** An assembled assistant message before the loop gives it an id. */
export type AssembledMessage = Omit<AssistantMessage, 'id'>

/** A chunk carrying visible text of a text, reasoning or refusal block. */
type TextDelta = Extract<StreamChunk, { type: 'text-delta' | 'reasoning-delta' | 'refusal-delta' }>

/** The block type each visible-text delta streams. */
const DELTA_BLOCK = { 'text-delta': 'text', 'reasoning-delta': 'reasoning', 'refusal-delta': 'refusal' } as const

function isTextDelta(chunk: StreamChunk): chunk is TextDelta {
  return chunk.type === 'text-delta' || chunk.type === 'reasoning-delta' || chunk.type === 'refusal-delta'
}

/** True when the chunks end with a finish that produced a complete reply. */
function isComplete(chunks: readonly StreamChunk[]): boolean {
  for (const chunk of chunks) {
    if (chunk.type === 'finish') return chunk.reason === 'stop' || chunk.reason === 'tool-calls' || chunk.reason === 'max-tokens'
  }
  return false
}

function byIndex(blocks: Map<number, AssistantBlock>): AssistantBlock[] {
  return [...blocks.entries()].sort((a, b) => a[0] - b[0]).map(entry => entry[1])
}

/** A complete stream: the `block-end` blocks in index order. */
function fromBlockEnds(chunks: readonly StreamChunk[]): AssistantBlock[] {
  const blocks = new Map<number, AssistantBlock>()
  for (const chunk of chunks) {
    if (chunk.type === 'block-end') blocks.set(chunk.index, chunk.block)
  }
  return byIndex(blocks)
}

/**
 * An interrupted stream: the visible prefix — each text, reasoning or refusal block from its `block-end` when it
 * ended, else from its deltas so far; tool calls and empty blocks are left out.
 */
function fromDeltas(chunks: readonly StreamChunk[]): AssistantBlock[] {
  const parts = new Map<number, { type: 'text' | 'reasoning' | 'refusal'; text: string; ended: boolean }>()
  for (const chunk of chunks) {
    if (isTextDelta(chunk)) {
      const part = parts.get(chunk.index)
      if (part === undefined) parts.set(chunk.index, { type: DELTA_BLOCK[chunk.type], text: chunk.text, ended: false })
      else if (!part.ended) part.text += chunk.text
    } else if (chunk.type === 'block-end' && chunk.block.type !== 'tool-call') {
      parts.set(chunk.index, { type: chunk.block.type, text: chunk.block.text, ended: true })
    }
  }
  const blocks = new Map<number, AssistantBlock>()
  for (const [index, part] of parts) {
    if (part.text !== '') blocks.set(index, { type: part.type, text: part.text })
  }
  return byIndex(blocks)
}

/**
 * The assistant message of one attempt. After a `finish` of `stop`, `tool-calls` or `max-tokens` it holds the
 * `block-end` blocks in index order; otherwise (aborted, failed or cut off) it holds the text, reasoning and
 * refusal received so far, without tool calls. With `id` the result is a complete `AssistantMessage`.
 */
export function assembleMessage(chunks: readonly StreamChunk[], source: ModelSource): AssembledMessage
export function assembleMessage(chunks: readonly StreamChunk[], source: ModelSource, id: MessageId): AssistantMessage
export function assembleMessage(chunks: readonly StreamChunk[], source: ModelSource, id?: MessageId): AssembledMessage {
  const content = isComplete(chunks) ? fromBlockEnds(chunks) : fromDeltas(chunks)
  if (id === undefined) return { role: 'assistant', content, source }
  const message: AssistantMessage = { id, role: 'assistant', content, source }
  return message
}

/** True iff the chunks hold any text, reasoning or refusal delta with visible text (the §5.5 "text arrived" test). */
export function hasVisibleText(chunks: readonly StreamChunk[]): boolean {
  return chunks.some(chunk => isTextDelta(chunk) && chunk.text !== '')
}
