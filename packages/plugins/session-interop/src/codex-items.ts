/**
 * Codex rollout lines as conversation items. `response_item`s are what the model saw and said: user and developer
 * messages, and the model's output — reasoning, messages, function, custom and local shell calls — grouped into one
 * response per request (a `token_count` event ends a request and carries its usage); call outputs answer calls by
 * `call_id`. `compacted` is a compaction; `turn_aborted` ends a turn; the other `event_msg`s repeat what the
 * response items hold (or are UI telemetry) and are counted, not imported.
 */

import { CallId, type ImageBlock, type TextBlock, type TokenUsage } from '@logbook/session'
import { text, urlImage } from './content.ts'
import type { ReportBuilder } from './report.ts'
import { arrayOf, countOf, nonEmpty, objectOf, stringOf, type JsonObject } from './source.ts'
import type { AssistantItem, ImportItem } from './types.ts'

/** Output item types that belong to the model's response. */
const OUTPUT_TYPES: ReadonlySet<string> = new Set(['reasoning', 'function_call', 'custom_tool_call', 'local_shell_call'])
/** Response items Codex writes that Logbook has no event for (server-side tools, snapshots, encrypted history). */
const SKIPPED_TYPES: ReadonlySet<string> = new Set([
  'web_search_call', 'image_generation_call', 'tool_search_call', 'tool_search_output', 'ghost_snapshot', 'compaction',
  'compaction_summary',
])
/** Context Codex injects as user messages; imported as the tool's own, not the user's. */
const CONTEXT_TAGS = /^\s*<(environment_context|user_instructions|user_shell_command|turn_aborted)>/

/** The conversion state across lines. */
export class CodexItems {
  readonly items: ImportItem[] = []
  provider = 'openai'
  model = 'unknown'
  private response: AssistantItem | undefined
  /** The last response since the previous `token_count`, which the next `token_count` prices. */
  private unpriced: AssistantItem | undefined

  constructor(private readonly report: ReportBuilder) {}

  /** Add one `response_item` payload. */
  responseItem(payload: JsonObject, time: number | undefined, key: string): void {
    const type = stringOf(payload.type) ?? '(no type)'
    if (type === 'message' && payload.role === 'assistant') return this.output(payload, time, key, type)
    if (OUTPUT_TYPES.has(type)) return this.output(payload, time, key, type)
    this.endResponse()
    switch (type) {
      case 'message':
        return this.message(payload, time, key)
      case 'function_call_output':
      case 'custom_tool_call_output':
        return this.callOutput(payload, time, key)
      default:
        if (SKIPPED_TYPES.has(type)) this.report.skip(`response_item:${type}`)
        else this.report.unknownType(`response_item:${type}`)
    }
  }

  /** A `token_count` event: usage of the request that just finished, which ends it. */
  tokenCount(payload: JsonObject): void {
    const last = objectOf(objectOf(payload.info)?.last_token_usage)
    const usage = usageOf(last)
    const target = this.response ?? this.unpriced
    if (usage !== undefined && target !== undefined) target.usage = usage
    this.endResponse()
    this.unpriced = undefined
  }

  /** Close the current response, if any. */
  endResponse(): void {
    if (this.response === undefined) return
    this.unpriced = this.response
    this.response = undefined
  }

  private message(payload: JsonObject, time: number | undefined, key: string): void {
    const content = partsOf(payload.content)
    if (payload.role === 'developer' || payload.role === 'system') {
      const joined = content.flatMap(part => (part.type === 'text' ? [part.text] : [])).join('\n')
      this.items.push({ kind: 'system', key, ...(time === undefined ? {} : { time }), text: joined })
      return
    }
    const context = content.length > 0 && content.every(part => part.type === 'text' && CONTEXT_TAGS.test(part.text))
    this.items.push({ kind: 'user', key, ...(time === undefined ? {} : { time }), content, ...(context ? { source: { kind: 'plugin', plugin: 'codex' } } : {}) })
  }

  private output(payload: JsonObject, time: number | undefined, key: string, type: string): void {
    const response = this.response ?? this.startResponse(time, key)
    switch (type) {
      case 'message':
        for (const part of arrayOf(payload.content)) {
          const block = objectOf(part)
          const refusal = stringOf(block?.refusal)
          if (refusal !== undefined) response.blocks.push({ type: 'refusal', text: refusal })
          else if (typeof block?.text === 'string') response.blocks.push(text(block.text))
        }
        return
      case 'reasoning': {
        const parts = [...arrayOf(payload.summary), ...arrayOf(payload.content)].flatMap(part => {
          const value = stringOf(objectOf(part)?.text)
          return value === undefined ? [] : [value]
        })
        if (parts.length > 0) response.blocks.push({ type: 'reasoning', text: parts.join('\n\n') })
        else this.report.skip('response_item:reasoning without readable text')
        return
      }
      case 'function_call':
        return this.call(response, payload, stringOf(payload.arguments) ?? '{}', nonEmpty(payload.name) ?? 'unknown', key)
      case 'custom_tool_call':
        return this.call(response, payload, stringOf(payload.input) ?? '', nonEmpty(payload.name) ?? 'unknown', key)
      default:
        return this.call(response, payload, JSON.stringify(payload.action ?? {}), 'local_shell', key)
    }
  }

  private call(response: AssistantItem, payload: JsonObject, args: string, name: string, key: string): void {
    const id = nonEmpty(payload.call_id) ?? nonEmpty(payload.id) ?? `${key}-call`
    response.blocks.push({ type: 'tool-call', id: CallId(id), name, arguments: args })
  }

  private startResponse(time: number | undefined, key: string): AssistantItem {
    const response: AssistantItem = {
      kind: 'assistant', key, ...(time === undefined ? {} : { time }), provider: this.provider, model: this.model, blocks: [],
    }
    this.items.push(response)
    this.response = response
    return response
  }

  private callOutput(payload: JsonObject, time: number | undefined, key: string): void {
    const callId = nonEmpty(payload.call_id) ?? ''
    const { content, isError } = outputOf(payload.output)
    this.items.push({ kind: 'tool-result', key, ...(time === undefined ? {} : { time }), callId, content, isError })
  }
}

/** Text and image parts of message content (`input_text`, `output_text`, `input_image`). */
function partsOf(content: unknown): (TextBlock | ImageBlock)[] {
  if (typeof content === 'string') return [text(content)]
  return arrayOf(content).flatMap(value => {
    const part = objectOf(value)
    if (part?.type === 'input_image') return [urlImage(part.image_url)]
    const value2 = stringOf(part?.text)
    return value2 === undefined ? [] : [text(value2)]
  })
}

/** A call output: a string, `{ content, success }`, or content items. */
function outputOf(output: unknown): { content: (TextBlock | ImageBlock)[]; isError: boolean } {
  if (typeof output === 'string') return { content: [text(output)], isError: false }
  if (Array.isArray(output)) return { content: partsOf(output), isError: false }
  const object = objectOf(output)
  const body = object?.content
  const content = typeof body === 'string' ? [text(body)] : Array.isArray(body) ? partsOf(body) : [text(JSON.stringify(output ?? null))]
  return { content, isError: object?.success === false }
}

/** Codex `last_token_usage` as Logbook's `TokenUsage`. */
function usageOf(usage: JsonObject | undefined): TokenUsage | undefined {
  const inputTokens = countOf(usage?.input_tokens)
  const outputTokens = countOf(usage?.output_tokens)
  if (inputTokens === undefined || outputTokens === undefined) return undefined
  const cacheReadTokens = countOf(usage?.cached_input_tokens)
  const reasoningTokens = countOf(usage?.reasoning_output_tokens)
  return {
    inputTokens, outputTokens,
    ...(cacheReadTokens === undefined ? {} : { cacheReadTokens }),
    ...(reasoningTokens === undefined ? {} : { reasoningTokens }),
  }
}
