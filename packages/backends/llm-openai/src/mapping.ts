/**
 * Request mapping (spec 03 §3.4): session messages and tool schemas to the chat-completions body.
 */

import type { LlmRequest } from '@logbook/llm'
import type { ImageBlock, Message, TextBlock } from '@logbook/session'
import type { Config } from './config.ts'

/** A chat-completions message. */
export type WireMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: WireToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string }

interface WireToolCall { id: string; type: 'function'; function: { name: string; arguments: string } }

/** Text parts as they are; any other part as `[<type> omitted]`; joined by `\n`. */
function partsText(parts: readonly (TextBlock | ImageBlock | { type: string })[]): string {
  return parts.map(part => (part.type === 'text' ? (part as TextBlock).text : `[${part.type} omitted]`)).join('\n')
}

/** One session message on the wire: reasoning is never sent; a tool result becomes a `tool` message. */
export function wireMessage(message: Message): WireMessage {
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
      const text = message.content.filter(part => part.type === 'text').map(part => part.text).join('\n')
      const calls: WireToolCall[] = []
      for (const part of message.content) {
        if (part.type === 'tool-call') calls.push({ id: part.id, type: 'function', function: { name: part.name, arguments: part.arguments } })
      }
      if (calls.length === 0) return { role: 'assistant', content: text }
      return { role: 'assistant', content: text === '' ? null : text, tool_calls: calls }
    }
  }
}

/**
 * The JSON body of a streaming request: `model`, `messages` (system first), `stream`, `stream_options`, then
 * `tools`, the max-tokens field, `temperature` and `reasoning_effort` when the request sets them.
 */
export function requestBody(request: LlmRequest, config: Pick<Config, 'maxTokensField'>): Record<string, unknown> {
  const messages: WireMessage[] = []
  if (request.system !== undefined) messages.push({ role: 'system', content: request.system })
  for (const message of request.messages) messages.push(wireMessage(message))
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
