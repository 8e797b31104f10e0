/**
 * Building `ToolOutcome`s (spec 03 §4): error outcomes carry one text part `Error: <message>`, and a body's return
 * value is checked at the tool boundary before it becomes content.
 */

import { assertSessionEvent, isJsonValue, type JsonValue, messageOf, snapshotJsonValue } from '@logbook/session'
import type { ToolContent, ToolOutcome, ToolOutcomeError } from './types.ts'

/** A failed outcome: `isError`, one text part `Error: <message>`, and `error { name, code, message }`. */
export function errorOutcome(code: string, message: string, name = 'ToolError'): ToolOutcome {
  const error: ToolOutcomeError = { name, code, message }
  return { isError: true, content: [{ type: 'text', text: `Error: ${message}` }], error }
}

/**
 * The failed outcome of a thrown value: `code`, the value's message (or `message` when given), and its `name` when
 * that is a non-empty string, else `ToolError`.
 */
export function thrownOutcome(code: string, error: unknown, message = messageOf(error)): ToolOutcome {
  const name = (error as { name?: unknown } | null | undefined)?.name
  return errorOutcome(code, message, typeof name === 'string' && name !== '' ? name : 'ToolError')
}

/** The message of the `UNKNOWN_TOOL` outcome for `name` (shared with callers that refuse a tool themselves). */
export function unknownToolMessage(name: string): string {
  return `unknown tool "${name}"`
}

const PROBE_PREFIX = 'event "tool/result": data.message.content[0].content'

/**
 * The first problem core's one validator (01 §2.3) finds in `content` as the inner content of a `tool/result`, with
 * its path relative to the content (`content[1].image.width must be a positive safe integer`), or `undefined`.
 * Checking here turns a malformed part into a `TOOL_ERROR` outcome instead of a vetoed `tool/result` append.
 */
function contentProblem(content: ToolContent): string | undefined {
  try {
    assertSessionEvent({
      type: 'tool/result', seq: 0, time: 0, surfaceOp: 'append',
      data: {
        turn: 1, step: 1,
        message: {
          id: 'probe', role: 'user', source: { kind: 'tool', callId: 'probe' },
          content: [{ type: 'tool-result', toolCallId: 'probe', content, isError: false }],
        },
      },
    })
    return undefined
  } catch (error) {
    const text = messageOf(error)
    return text.startsWith(PROBE_PREFIX) ? `content${text.slice(PROBE_PREFIX.length)}` : text
  }
}

/** A string or an array of parts as validated, detached content; otherwise why not. */
function contentOf(value: unknown): { readonly content: ToolContent } | { readonly problem: string } {
  if (typeof value === 'string') return { content: [{ type: 'text', text: value }] }
  if (!Array.isArray(value)) return { problem: 'content must be a string or text/image parts' }
  const copy = snapshotJsonValue(value) as ToolContent | undefined
  if (copy === undefined) return { problem: 'content is not lossless JSON' }
  const problem = contentProblem(copy)
  return problem === undefined ? { content: copy } : { problem }
}

const RESULT_KEYS: ReadonlySet<string> = new Set(['content', 'isError', 'meta'])

/**
 * The outcome of a body that returned `value`, or a description of why `value` is not a valid tool result: a
 * string, text/image parts that core's validator accepts as `tool/result` content, or `{ content, isError?, meta? }`
 * with lossless-JSON `meta` and no other key.
 */
export function returnOutcome(value: unknown): ToolOutcome | string {
  if (typeof value === 'string' || Array.isArray(value)) {
    const direct = contentOf(value)
    return 'problem' in direct ? direct.problem : { isError: false, content: direct.content }
  }
  if (typeof value !== 'object' || value === null) return 'expected a string, text/image parts, or { content, isError?, meta? }'
  // An unknown key would be dropped from the log without a word; the body meant something the seam cannot keep.
  for (const key of Object.keys(value)) {
    if (!RESULT_KEYS.has(key)) return `unknown key "${key}" (expected { content, isError?, meta? })`
  }
  const { content, isError, meta } = value as { content?: unknown; isError?: unknown; meta?: unknown }
  const parts = contentOf(content)
  if ('problem' in parts) return parts.problem
  if (isError !== undefined && typeof isError !== 'boolean') return 'isError must be a boolean'
  if (meta !== undefined && !isJsonValue(meta)) return 'meta is not lossless JSON'
  const outcome: { -readonly [K in keyof ToolOutcome]: ToolOutcome[K] } = { isError: isError ?? false, content: parts.content }
  if (meta !== undefined) outcome.meta = snapshotJsonValue(meta as JsonValue)!
  return outcome
}
