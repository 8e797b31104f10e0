/**
 * Logbook messages in the GenAI semantic conventions' message shape (v1.41.0 `gen-ai-input-messages.json` and
 * `gen-ai-output-messages.json`): `{ role, parts }` with `text`, `reasoning`, `tool_call`, `tool_call_response`,
 * `blob` (inline image bytes) and `uri` (an image by reference) parts.
 */

import { assertNever, type ImageBlock, type JsonValue, type Message, type TextBlock } from '@logbook/session'
import { argumentsValue, imageData, joinedText } from './wire.ts'

/** One message part. */
export type GenAiPart = { readonly type: string; readonly [key: string]: JsonValue }

/** One message. */
export interface GenAiMessage {
  readonly role: 'system' | 'user' | 'assistant' | 'tool'
  readonly parts: readonly GenAiPart[]
  readonly finish_reason?: string
}

function imagePart(image: ImageBlock['image']): GenAiPart {
  const data = imageData(image)
  return 'base64' in data
    ? { type: 'blob', modality: 'image', mime_type: image.mediaType, content: data.base64 }
    : { type: 'uri', modality: 'image', mime_type: image.mediaType, uri: data.url }
}

function contentParts(parts: readonly (TextBlock | ImageBlock)[]): GenAiPart[] {
  return parts.map(part => (part.type === 'text' ? { type: 'text', content: part.text } : imagePart(part.image)))
}

/** `message` as a GenAI message. */
export function genAiMessage(message: Message): GenAiMessage {
  switch (message.role) {
    case 'system':
      return { role: 'system', parts: contentParts(message.content) }
    case 'user': {
      const [first] = message.content
      if (message.source.kind !== 'tool' || first?.type !== 'tool-result') {
        return { role: 'user', parts: contentParts(message.content as readonly (TextBlock | ImageBlock)[]) }
      }
      const images = first.content.flatMap(part => (part.type === 'image' ? [imagePart(part.image)] : []))
      return { role: 'tool', parts: [{ type: 'tool_call_response', id: first.toolCallId, response: joinedText(first.content) }, ...images] }
    }
    case 'assistant':
      return {
        role: 'assistant',
        parts: message.content.map((block): GenAiPart => {
          switch (block.type) {
            case 'text': return { type: 'text', content: block.text }
            case 'reasoning': return { type: 'reasoning', content: block.text }
            case 'refusal': return { type: 'refusal', content: block.text }
            case 'tool-call': return { type: 'tool_call', id: block.id, name: block.name, arguments: argumentsValue(block.arguments) }
            default: return assertNever(block)
          }
        }),
      }
    default:
      return assertNever(message)
  }
}

/** The conventions' finish reason of an assistant message. */
export function finishReasonOf(message: Message, interrupted: boolean): string {
  if (interrupted) return 'error'
  return message.role === 'assistant' && message.content.some(block => block.type === 'tool-call') ? 'tool_call' : 'stop'
}
