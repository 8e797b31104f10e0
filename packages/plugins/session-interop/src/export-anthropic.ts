/**
 * `exportAnthropicMessages`: what the model sees next (the surface) as an Anthropic Messages API request body. The
 * system head goes to `system`; messages alternate user and assistant, consecutive ones of a role merged (tool
 * results of parallel calls share one user message, results first); reasoning becomes `thinking` blocks, with the
 * signature an import kept; tool calls become `tool_use` with their arguments as an object, results `tool_result`.
 */

import { assertNever, type AssistantMessage, type ImageBlock, type Message, type SessionEvent, type TextBlock } from '@logbook/session'
import type { AnthropicBlock, AnthropicMessage, AnthropicMessagesExport } from './types.ts'
import { argumentsObject, imageData, joinedText, modelOf, newestHeader, surfaceOf } from './wire.ts'

function partBlock(part: TextBlock | ImageBlock): AnthropicBlock {
  if (part.type === 'text') return { type: 'text', text: part.text }
  const data = imageData(part.image)
  if ('base64' in data) return { type: 'image', source: { type: 'base64', media_type: part.image.mediaType, data: data.base64 } }
  return /^https?:/i.test(data.url) ? { type: 'image', source: { type: 'url', url: data.url } } : { type: 'text', text: `[image ${data.url}]` }
}

/** The signatures an import kept for the reasoning blocks of `message`, in order. */
function signaturesOf(message: AssistantMessage): readonly unknown[] {
  const state = message.source.replayState
  const list = typeof state === 'object' && state !== null && !Array.isArray(state) ? (state as { thinkingSignatures?: unknown }).thinkingSignatures : undefined
  return Array.isArray(list) ? list : []
}

function assistantBlocks(message: AssistantMessage): AnthropicBlock[] {
  const signatures = signaturesOf(message)
  let reasoning = 0
  const blocks: AnthropicBlock[] = []
  for (const block of message.content) {
    switch (block.type) {
      case 'text':
        if (block.text !== '') blocks.push({ type: 'text', text: block.text })
        break
      case 'refusal':
        if (block.text !== '') blocks.push({ type: 'text', text: block.text })
        break
      case 'reasoning': {
        const signature = signatures[reasoning++]
        blocks.push({ type: 'thinking', thinking: block.text, ...(typeof signature === 'string' ? { signature } : {}) })
        break
      }
      case 'tool-call':
        blocks.push({ type: 'tool_use', id: block.id, name: block.name, input: argumentsObject(block.arguments) })
        break
      default:
        assertNever(block)
    }
  }
  return blocks
}

/** One Logbook message as an Anthropic role and blocks. */
function messageBlocks(message: Message): { role: 'user' | 'assistant'; blocks: AnthropicBlock[] } {
  switch (message.role) {
    case 'system':
      return { role: 'user', blocks: [{ type: 'text', text: joinedText(message.content) }] }
    case 'assistant':
      return { role: 'assistant', blocks: assistantBlocks(message) }
    case 'user': {
      const [first] = message.content
      if (message.source.kind === 'tool' && first?.type === 'tool-result') {
        const content = first.content.map(partBlock)
        return { role: 'user', blocks: [{ type: 'tool_result', tool_use_id: first.toolCallId, content, ...(first.isError === true ? { is_error: true as const } : {}) }] }
      }
      return { role: 'user', blocks: (message.content as readonly (TextBlock | ImageBlock)[]).map(partBlock) }
    }
    default:
      return assertNever(message)
  }
}

/** Consecutive messages of one role merged; in a user message, tool results come first, as the API requires. */
function merged(parts: readonly { role: 'user' | 'assistant'; blocks: AnthropicBlock[] }[]): AnthropicMessage[] {
  const out: { role: 'user' | 'assistant'; content: AnthropicBlock[] }[] = []
  for (const part of parts) {
    if (part.blocks.length === 0) continue
    const last = out.at(-1)
    if (last?.role === part.role) last.content.push(...part.blocks)
    else out.push({ role: part.role, content: [...part.blocks] })
  }
  for (const message of out) {
    if (message.role !== 'user') continue
    message.content = [...message.content.filter(b => b.type === 'tool_result'), ...message.content.filter(b => b.type !== 'tool_result')]
  }
  return out
}

/**
 * The Anthropic Messages request body of the session whose log is `events`: `{ model, system?, messages, tools? }`
 * from its surface; `model` and `tools` from the newest request header (`model` falls back to the newest assistant
 * message's, else null). Pure and deterministic.
 */
export function exportAnthropicMessages(events: readonly SessionEvent[]): AnthropicMessagesExport {
  const { system, messages } = surfaceOf(events)
  const tools = newestHeader(events)?.tools?.map(tool => ({ name: tool.name, description: tool.description, input_schema: tool.parameters }))
  return {
    model: modelOf(events),
    ...(system === undefined ? {} : { system: joinedText(system.content) }),
    messages: merged(messages.map(messageBlocks)),
    ...(tools === undefined || tools.length === 0 ? {} : { tools }),
  }
}
