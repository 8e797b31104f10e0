/**
 * Small pieces both exports share: the surface as messages (what the model sees next), the newest request header,
 * tool-call arguments as an object, and an image's bytes or URL.
 */

import {
  deriveEventMessage, foldSurface, type ImageRef, type JsonValue, type Message, type RequestHeader, type SessionEvent,
  type SystemMessage,
} from '@logbook/session'

/** The surface of `events`: the system head apart (node 0, when it is a system message), then every message. */
export function surfaceOf(events: readonly SessionEvent[]): { system?: SystemMessage; messages: Message[] } {
  const messages: Message[] = []
  let system: SystemMessage | undefined
  foldSurface(events).nodes.forEach((seq, position) => {
    const message = deriveEventMessage(events[seq]!)
    if (message === null) return
    if (position === 0 && message.role === 'system') system = message
    else messages.push(message)
  })
  return { ...(system === undefined ? {} : { system }), messages }
}

/** The newest logged request header, if any. */
export function newestHeader(events: readonly SessionEvent[]): RequestHeader | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!
    if (event.type === 'request/header') return event.data.header
  }
  return undefined
}

/** The model of the newest request header, else of the newest assistant message, else null. */
export function modelOf(events: readonly SessionEvent[]): string | null {
  const header = newestHeader(events)
  if (header !== undefined) return header.config.model
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!
    if (event.type === 'assistant/message') return event.data.message.source.model
  }
  return null
}

/** Tool-call `arguments` as a JSON object; text that is not an object is kept as `{ arguments: <text> }`. */
export function argumentsObject(text: string): { [key: string]: JsonValue } {
  try {
    const value = JSON.parse(text) as unknown
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as { [key: string]: JsonValue }
  } catch {
    // Not JSON: kept verbatim below.
  }
  return { arguments: text }
}

/** Tool-call `arguments` parsed as JSON, or the text itself when it is not JSON. */
export function argumentsValue(text: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue
  } catch {
    return text
  }
}

/** An image's inline bytes (a base64 `data:` URI), or its URL. */
export function imageData(image: ImageRef): { base64: string } | { url: string } {
  const inline = /^data:[^;,]+;base64,(.*)$/s.exec(image.uri)
  return inline === null ? { url: image.uri } : { base64: inline[1]! }
}

/** The text blocks of `blocks` joined by a newline. */
export function joinedText(blocks: readonly { readonly type: string; readonly text?: string }[]): string {
  return blocks.flatMap(block => (block.type === 'text' && block.text !== undefined ? [block.text] : [])).join('\n')
}
