/**
 * Response decoding (spec 03 §3.4): chat-completion stream events to seam chunks. `delta.content` is the text
 * block, `delta.reasoning_content` / `delta.reasoning` the reasoning block, `delta.refusal` the refusal block,
 * `delta.tool_calls[i]` tool-call block `i`; indexes follow first appearance.
 */

import { randomUUID } from 'node:crypto'
import type { CallId, FinishReason, LlmFailure, StreamChunk, TokenUsage } from '@logbook/session'
import { streamFailure } from './failures.ts'
import type { SseEvent } from './sse.ts'

type Block =
  | { kind: 'text' | 'reasoning' | 'refusal'; index: number; text: string }
  | { kind: 'tool-call'; index: number; id: CallId; name: string; arguments: string }

/** What one event produced: chunks to relay, and whether the stream is over (`[DONE]`) or failed. */
export interface Decoded {
  readonly chunks: StreamChunk[]
  readonly done?: true
  readonly failure?: LlmFailure
}

type Raw = Record<string, unknown>

function isObject(value: unknown): value is Raw {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.trunc(value) : undefined
}

/** `usage` of a chunk: prompt and completion tokens, cached and reasoning details when given. */
export function mapUsage(raw: unknown): TokenUsage | undefined {
  if (!isObject(raw)) return undefined
  const inputTokens = count(raw.prompt_tokens)
  const outputTokens = count(raw.completion_tokens)
  if (inputTokens === undefined || outputTokens === undefined) return undefined
  const prompt = isObject(raw.prompt_tokens_details) ? raw.prompt_tokens_details : {}
  const completion = isObject(raw.completion_tokens_details) ? raw.completion_tokens_details : {}
  const cacheReadTokens = count(prompt.cached_tokens) ?? count(raw.prompt_cache_hit_tokens)
  const reasoningTokens = count(completion.reasoning_tokens)
  return {
    inputTokens,
    outputTokens,
    ...(cacheReadTokens === undefined ? {} : { cacheReadTokens }),
    ...(reasoningTokens === undefined ? {} : { reasoningTokens }),
  }
}

/** The `finish_reason` values this adapter maps; `content_filter` is an error, any other value an unknown one. */
const FINISH_REASONS: ReadonlyMap<string, FinishReason> = new Map([
  ['stop', 'stop'], ['tool_calls', 'tool-calls'], ['function_call', 'tool-calls'], ['length', 'max-tokens'],
])

/** The state of one response: open blocks, the finish reason and usage seen so far. */
export class ResponseDecoder {
  private readonly blocks = new Map<string, Block>()
  private usage: TokenUsage | undefined
  /** The `finish_reason` received, if any; a body that ends after one is complete. */
  finishReason: string | undefined

  /** Decode one SSE event. */
  decode(event: SseEvent): Decoded {
    if (event.data === '[DONE]') return { chunks: [], done: true }
    let payload: unknown
    try {
      payload = JSON.parse(event.data)
    } catch {
      return { chunks: [], failure: { code: 'PROTOCOL', message: `openai: invalid JSON in stream event: ${event.data.slice(0, 200)}` } }
    }
    if (!isObject(payload)) {
      return { chunks: [], failure: { code: 'PROTOCOL', message: `openai: stream event is not a JSON object: ${event.data.slice(0, 200)}` } }
    }
    if (payload.error !== undefined && payload.error !== null) return { chunks: [], failure: streamFailure(payload.error) }
    if (event.event === 'error') return { chunks: [], failure: streamFailure(payload) }
    const usage = mapUsage(payload.usage)
    if (usage !== undefined) this.usage = usage
    const choices = Array.isArray(payload.choices) ? payload.choices : []
    const choice = choices.find(c => isObject(c) && (c.index === 0 || c.index === undefined)) as Raw | undefined
    if (choice === undefined) return { chunks: [] }
    const chunks = isObject(choice.delta) ? this.delta(choice.delta) : []
    if (typeof choice.finish_reason === 'string') this.finishReason = choice.finish_reason
    return { chunks }
  }

  private delta(delta: Raw): StreamChunk[] {
    const chunks: StreamChunk[] = []
    const reasoning = typeof delta.reasoning_content === 'string' ? delta.reasoning_content : delta.reasoning
    if (typeof reasoning === 'string' && reasoning !== '') this.text('reasoning', reasoning, chunks)
    if (typeof delta.content === 'string' && delta.content !== '') this.text('text', delta.content, chunks)
    if (typeof delta.refusal === 'string' && delta.refusal !== '') this.text('refusal', delta.refusal, chunks)
    if (Array.isArray(delta.tool_calls)) {
      delta.tool_calls.forEach((call: unknown, position) => {
        if (isObject(call)) this.toolCall(call, position, chunks)
      })
    }
    return chunks
  }

  private text(kind: 'text' | 'reasoning' | 'refusal', text: string, chunks: StreamChunk[]): void {
    let block = this.blocks.get(kind)
    if (block === undefined) {
      block = { kind, index: this.blocks.size, text: '' }
      this.blocks.set(kind, block)
      chunks.push({ type: 'block-start', index: block.index, blockType: kind })
    }
    if (block.kind === 'tool-call') return
    block.text += text
    chunks.push({ type: `${kind}-delta`, index: block.index, text })
  }

  private toolCall(call: Raw, position: number, chunks: StreamChunk[]): void {
    const key = `tool:${typeof call.index === 'number' ? call.index : position}`
    const fn = isObject(call.function) ? call.function : {}
    const args = typeof fn.arguments === 'string' ? fn.arguments : ''
    const block = this.blocks.get(key)
    if (block === undefined || block.kind !== 'tool-call') {
      const id = (typeof call.id === 'string' && call.id !== '' ? call.id : `call_${randomUUID().slice(0, 8)}`) as CallId
      const name = typeof fn.name === 'string' ? fn.name : ''
      const created: Block = { kind: 'tool-call', index: this.blocks.size, id, name, arguments: args }
      this.blocks.set(key, created)
      chunks.push({ type: 'block-start', index: created.index, blockType: 'tool-call' })
      chunks.push({ type: 'tool-call-delta', index: created.index, id, name, argumentsDelta: args })
      return
    }
    if (block.name === '' && typeof fn.name === 'string') block.name = fn.name
    if (args === '') return
    block.arguments += args
    chunks.push({ type: 'tool-call-delta', index: block.index, id: block.id, argumentsDelta: args })
  }

  /**
   * A streaming request answered with one JSON body instead of events: a provider `error` object becomes its
   * failure, a chat completion (`choices[0].message`) is decoded as if its message had streamed as one delta and
   * ends like a complete stream; any other JSON is a `PROTOCOL` failure naming it. `undefined`: not JSON at all.
   */
  decodeBody(text: string): { readonly chunks: StreamChunk[]; readonly failure?: LlmFailure } | undefined {
    let payload: unknown
    try {
      payload = JSON.parse(text)
    } catch {
      return undefined
    }
    if (isObject(payload) && payload.error !== undefined && payload.error !== null) {
      return { chunks: [], failure: streamFailure(payload.error, 'error in the response body') }
    }
    const choice = isObject(payload) && Array.isArray(payload.choices) ? payload.choices.find(isObject) : undefined
    if (choice === undefined || !isObject(choice.message)) {
      const failure = { code: 'PROTOCOL', message: `openai: the response body is JSON but neither a chat completion nor an error: ${text.trim().slice(0, 200)}` }
      return { chunks: [], failure }
    }
    const usage = mapUsage((payload as Raw).usage)
    if (usage !== undefined) this.usage = usage
    const chunks = this.delta(choice.message)
    if (typeof choice.finish_reason === 'string') this.finishReason = choice.finish_reason
    return { chunks: [...chunks, ...this.complete()] }
  }

  /** The end of a complete response: every open block ends in index order, then `usage`, then `finish`. */
  complete(): StreamChunk[] {
    const chunks: StreamChunk[] = []
    const ordered = [...this.blocks.values()].sort((a, b) => a.index - b.index)
    for (const block of ordered) {
      chunks.push({
        type: 'block-end',
        index: block.index,
        block: block.kind === 'tool-call'
          ? { type: 'tool-call', id: block.id, name: block.name, arguments: block.arguments }
          : { type: block.kind, text: block.text },
      })
    }
    if (this.usage !== undefined) chunks.push({ type: 'usage', usage: this.usage })
    chunks.push(this.finish(ordered.some(block => block.kind === 'tool-call')))
    return chunks
  }

  /**
   * The `finish` for the received `finish_reason`, which it keeps as `rawFinishReason`. A reason this adapter does
   * not know ends the attempt as an error: the answer may be cut off, so it must not look complete.
   */
  private finish(hasCalls: boolean): StreamChunk {
    const raw = this.finishReason
    if (raw === undefined || raw === '') return { type: 'finish', reason: hasCalls ? 'tool-calls' : 'stop' }
    const rawFinishReason = raw
    if (raw === 'content_filter') {
      return { type: 'finish', reason: 'error', error: { code: 'CONTENT_FILTER', message: 'openai: response stopped by the content filter' }, rawFinishReason }
    }
    const reason = FINISH_REASONS.get(raw)
    if (reason !== undefined) return { type: 'finish', reason, rawFinishReason }
    const message = `openai: the response ended with finish_reason "${raw.slice(0, 100)}", which this adapter does not know; the answer may be incomplete`
    return { type: 'finish', reason: 'error', error: { code: 'PROVIDER', message }, rawFinishReason }
  }
}
