/**
 * Request mapping (spec 03 §3.4): session messages and tool schemas to the chat-completions body.
 */

import type { LlmRequest } from '@logbook/llm'
import type { ImageBlock, Message, TextBlock } from '@logbook/session'
import { roundTripsReasoning, type Config } from './config.ts'

/** A chat-completions message. */
export type WireMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; reasoning_content?: string; tool_calls?: WireToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string }

interface WireToolCall { id: string; type: 'function'; function: { name: string; arguments: string } }

function assertNever(value: never): never {
  throw new TypeError(`unexpected assistant part ${JSON.stringify(value)}`)
}

/** Text parts as they are; any other part as `[<type> omitted]`; joined by `\n`. */
function partsText(parts: readonly (TextBlock | ImageBlock | { type: string })[]): string {
  return parts.map(part => (part.type === 'text' ? (part as TextBlock).text : `[${part.type} omitted]`)).join('\n')
}

/** How messages go on the wire for one configuration. */
export interface WireOptions {
  /** Send a tool-calling assistant message's reasoning as `reasoning_content` (`''` when it has none). */
  readonly reasoningRoundTrip?: boolean
}

/**
 * One session message on the wire. A tool result becomes a `tool` message. An assistant's text and refusal parts
 * become its `content`, in order, joined by `\n` (chat completions take no refusal part as input). Reasoning is
 * sent only with `reasoningRoundTrip`, and only on a message with tool calls.
 */
export function wireMessage(message: Message, options: WireOptions = {}): WireMessage {
  switch (message.role) {
    case 'system':
      return { role: 'system', content: partsText(message.content) }
    case 'user': {
      const [first] = message.content
      if (message.source.kind === 'tool' && first?.type === 'tool-result') {
        return { role: 'tool', tool_call_id: first.toolCallId, content: partsText(first.content) }
      }
      return { role: 'user', content: partsText(message.content as readonly (TextBlock | ImageBlock)[]) }
    }
    case 'assistant': {
      const said: string[] = []
      const reasoning: string[] = []
      const calls: WireToolCall[] = []
      for (const part of message.content) {
        switch (part.type) {
          case 'text':
          case 'refusal':
            said.push(part.text)
            break
          case 'reasoning':
            reasoning.push(part.text)
            break
          case 'tool-call':
            calls.push({ id: part.id, type: 'function', function: { name: part.name, arguments: part.arguments } })
            break
          default:
            assertNever(part)
        }
      }
      const text = said.join('\n')
      if (calls.length === 0) return { role: 'assistant', content: text }
      return {
        role: 'assistant',
        content: text === '' ? null : text,
        ...(options.reasoningRoundTrip === true ? { reasoning_content: reasoning.join('\n') } : {}),
        tool_calls: calls,
      }
    }
  }
}

/**
 * The JSON body of a streaming request: `model`, `messages` (system first), `stream`, `stream_options`, then
 * `tools`, the max-tokens field, `temperature` and `reasoning_effort` when the request sets them.
 */
export function requestBody(
  request: LlmRequest, config: Pick<Config, 'maxTokensField' | 'provider' | 'baseUrl' | 'reasoningRoundTrip'>,
): Record<string, unknown> {
  const options: WireOptions = { reasoningRoundTrip: roundTripsReasoning(config) }
  const messages: WireMessage[] = []
  if (request.system !== undefined) messages.push({ role: 'system', content: request.system })
  for (const message of request.messages) messages.push(wireMessage(message, options))
  const body: Record<string, unknown> = {
    model: request.config.model,
    messages,
    stream: true,
    stream_options: { include_usage: true },
  }
  if (request.tools !== undefined && request.tools.length > 0) {
    body.tools = request.tools.map(tool => ({
      type: 'function',
      function: { name: tool.name, description: tool.description, parameters: tool.parameters },
    }))
  }
  const { maxTokens, temperature, reasoningEffort } = request.config
  if (typeof maxTokens === 'number') body[config.maxTokensField] = maxTokens
  if (typeof temperature === 'number') body.temperature = temperature
  if (typeof reasoningEffort === 'string') body.reasoning_effort = reasoningEffort
  return body
}

/** Request headers: JSON in, event stream out, `Authorization` only with a key, then the configured extras. */
export function requestHeaders(apiKey: string | undefined, extra: Record<string, string> | undefined): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'text/event-stream' }
  if (apiKey !== undefined && apiKey !== '') headers.authorization = `Bearer ${apiKey}`
  for (const [key, value] of Object.entries(extra ?? {})) headers[key.toLowerCase()] = value
  return headers
}
