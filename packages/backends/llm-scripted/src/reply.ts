/**
 * The chunks of one scripted reply (spec 03 §3.3): reasoning, text, then tool calls, indexes from 0, each as
 * `block-start`, deltas of `chunkSize` code points, `block-end`; then `usage` and `finish`.
 */

import { createHash } from 'node:crypto'
import { defaultTokenEstimator, type LlmRequest } from '@logbook/llm'
import type { CallId, MessageId, ReasoningBlock, StreamChunk, TextBlock, TokenUsage, ToolCallBlock } from '@logbook/session'
import type { ScriptResponse } from './types.ts'

type ReplyBlock = TextBlock | ReasoningBlock | ToolCallBlock

/** What a reply produces before any failure or hang is applied. */
export interface Reply {
  readonly content: readonly StreamChunk[]
  readonly blocks: readonly ReplyBlock[]
}

/** `call_` + 8 hex digits of SHA-256 of `<sessionId>:<messages.length>:<entry index>:<call index>`. */
export function scriptedCallId(sessionId: string, messageCount: number, entryIndex: number, callIndex: number): CallId {
  const digest = createHash('sha256').update(`${sessionId}:${messageCount}:${entryIndex}:${callIndex}`).digest('hex')
  return `call_${digest.slice(0, 8)}` as CallId
}

/** Split `text` into pieces of `size` code points (one empty piece for empty text). */
function pieces(text: string, size: number): string[] {
  const points = Array.from(text)
  if (points.length === 0) return ['']
  const out: string[] = []
  for (let i = 0; i < points.length; i += size) out.push(points.slice(i, i + size).join(''))
  return out
}

/** The content chunks and blocks of `entry` answering `request`. */
export function buildReply(entry: ScriptResponse, request: LlmRequest, defaultChunkSize: number): Reply {
  const size = entry.chunkSize ?? defaultChunkSize
  const content: StreamChunk[] = []
  const blocks: ReplyBlock[] = []
  const textBlock = (type: 'text' | 'reasoning', text: string): void => {
    if (text === '') return
    const index = blocks.length
    const block = { type, text }
    content.push({ type: 'block-start', index, blockType: type })
    for (const piece of pieces(text, size)) {
      content.push({ type: type === 'text' ? 'text-delta' : 'reasoning-delta', index, text: piece })
    }
    content.push({ type: 'block-end', index, block })
    blocks.push(block)
  }
  textBlock('reasoning', entry.reasoning)
  textBlock('text', entry.text)
  entry.toolCalls.forEach((call, callIndex) => {
    const index = blocks.length
    const id = (call.id as CallId | undefined)
      ?? scriptedCallId(request.sessionId ?? '', request.messages.length, entry.index, callIndex)
    const block: ToolCallBlock = { type: 'tool-call', id, name: call.name, arguments: call.arguments }
    content.push({ type: 'block-start', index, blockType: 'tool-call' })
    pieces(call.arguments, size).forEach((piece, i) => {
      content.push(i === 0
        ? { type: 'tool-call-delta', index, id, name: call.name, argumentsDelta: piece }
        : { type: 'tool-call-delta', index, id, argumentsDelta: piece })
    })
    content.push({ type: 'block-end', index, block })
    blocks.push(block)
  })
  return { content, blocks }
}

/**
 * The usage a reply reports: the entry's own, else the default estimator's — input `text(system)` +
 * `tools(tools)` + Σ `message()`, output the reply's `message()`.
 */
export function replyUsage(entry: ScriptResponse, request: LlmRequest, blocks: readonly ReplyBlock[]): TokenUsage {
  if (entry.usage !== undefined) return entry.usage
  const est = defaultTokenEstimator
  let input = est.text(request.system ?? '') + (request.tools === undefined ? 0 : est.tools(request.tools))
  for (const message of request.messages) input += est.message(message)
  const reply = { id: '' as MessageId, role: 'assistant', content: blocks, source: { kind: 'model', provider: '', model: '' } } as const
  return { inputTokens: input, outputTokens: est.message(reply) }
}

/** The finish reason of a complete reply: the entry's own, else `tool-calls` when it calls tools, else `stop`. */
export function replyFinish(entry: ScriptResponse): 'stop' | 'tool-calls' | 'max-tokens' {
  return entry.finish ?? (entry.toolCalls.length > 0 ? 'tool-calls' : 'stop')
}
