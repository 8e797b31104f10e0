/**
 * Building `ToolOutcome`s (spec 03 §4): error outcomes carry one text part `Error: <message>`, and a body's return
 * value is checked at the tool boundary before it becomes content.
 */

import { isJsonValue, snapshotJsonValue, type ImageBlock, type JsonValue, type TextBlock } from '@logbook/session'
import type { ToolContent, ToolOutcome, ToolOutcomeError } from './types.ts'

/** A failed outcome: `isError`, one text part `Error: <message>`, and `error { name, code, message }`. */
export function errorOutcome(code: string, message: string, name = 'ToolError'): ToolOutcome {
  const error: ToolOutcomeError = { name, code, message }
  return { isError: true, content: [{ type: 'text', text: `Error: ${message}` }], error }
}

/** The message of the `UNKNOWN_TOOL` outcome for `name` (shared with callers that refuse a tool themselves). */
export function unknownToolMessage(name: string): string {
  return `unknown tool "${name}"`
}

const MEDIA_TYPES: ReadonlySet<string> = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp'])

function isPart(value: unknown): value is TextBlock | ImageBlock {
  if (typeof value !== 'object' || value === null) return false
  const part = value as { type?: unknown; text?: unknown; image?: unknown }
  if (part.type === 'text') return typeof part.text === 'string'
  if (part.type !== 'image' || typeof part.image !== 'object' || part.image === null) return false
  const image = part.image as { uri?: unknown; mediaType?: unknown }
  return typeof image.uri === 'string' && image.uri !== '' && typeof image.mediaType === 'string' && MEDIA_TYPES.has(image.mediaType)
}

function contentOf(value: unknown): ToolContent | undefined {
  if (typeof value === 'string') return [{ type: 'text', text: value }]
  if (!Array.isArray(value) || !value.every(isPart)) return undefined
  return snapshotJsonValue(value) as ToolContent | undefined
}

/**
 * The outcome of a body that returned `value`, or a description of why `value` is not a valid tool result
 * (a string, text/image parts, or `{ content, isError?, meta? }` with lossless-JSON `meta`).
 */
export function returnOutcome(value: unknown): ToolOutcome | string {
  const direct = contentOf(value)
  if (direct !== undefined) return { isError: false, content: direct }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return 'expected a string, text/image parts, or { content, isError?, meta? }'
  }
  const { content, isError, meta } = value as { content?: unknown; isError?: unknown; meta?: unknown }
  const parts = contentOf(content)
  if (parts === undefined) return 'content must be a string or text/image parts'
  if (isError !== undefined && typeof isError !== 'boolean') return 'isError must be a boolean'
  if (meta !== undefined && !isJsonValue(meta)) return 'meta is not lossless JSON'
  const outcome: { -readonly [K in keyof ToolOutcome]: ToolOutcome[K] } = { isError: isError ?? false, content: parts }
  if (meta !== undefined) outcome.meta = snapshotJsonValue(meta as JsonValue)!
  return outcome
}
