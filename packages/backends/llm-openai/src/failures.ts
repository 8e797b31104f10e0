/**
 * Error mapping (spec 03 §3.4): HTTP statuses, in-stream error objects and transport failures to in-band
 * `LlmFailure`s with the seam's codes.
 */

import type { LlmFailureCode } from '@logbook/llm'
import type { LlmFailure } from '@logbook/session'

/** How much of an error body is read. */
export const ERROR_BODY_LIMIT = 64 * 1024

const CONTEXT = /context[_ -]?length|context[_ -]?window|maximum context|prompt is too long|too many tokens/i

/** True when a provider text names the context length or window. */
export function namesContextWindow(text: string): boolean {
  return CONTEXT.test(text)
}

/** The seam code for an HTTP status (a 400/413 naming the context window is decided by the caller). */
export function codeForStatus(status: number): LlmFailureCode {
  if (status === 401 || status === 403) return 'AUTH'
  if (status === 404) return 'NOT_FOUND'
  if (status === 408 || status === 504) return 'TIMEOUT'
  if (status === 429) return 'RATE_LIMIT'
  if (status === 400 || status === 413 || status === 422) return 'BAD_REQUEST'
  return 'PROVIDER'
}

/** Milliseconds to wait from a `Retry-After` value (delta seconds or an HTTP date), or `undefined`. */
export function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (value === null) return undefined
  const text = value.trim()
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000)
  const date = Date.parse(text)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

/** The provider's own message in an error body: `error.message`, `message`, a string `error`, else the text. */
export function providerMessage(body: string, fallback: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: unknown; message?: unknown }
    const error = parsed?.error
    if (typeof error === 'object' && error !== null && typeof (error as { message?: unknown }).message === 'string') {
      return (error as { message: string }).message
    }
    if (typeof error === 'string') return error
    if (typeof parsed?.message === 'string') return parsed.message
  } catch {
    // Not JSON: the raw text is the message.
  }
  const text = body.trim()
  return text === '' ? fallback : text.slice(0, 1000)
}

/** The failure of a non-2xx response: "openai: HTTP <status>: <provider message>". */
export function httpFailure(status: number, statusText: string, body: string, headers: Headers, now: number): LlmFailure {
  const code: LlmFailureCode = (status === 400 || status === 413) && namesContextWindow(body)
    ? 'CONTEXT_WINDOW_EXCEEDED'
    : codeForStatus(status)
  const failure: { -readonly [K in keyof LlmFailure]: LlmFailure[K] } = {
    code,
    message: `openai: HTTP ${status}: ${providerMessage(body, statusText || 'no message')}`,
    status,
  }
  if (code === 'RATE_LIMIT') {
    const retryAfterMs = parseRetryAfter(headers.get('retry-after'), now)
    if (retryAfterMs !== undefined) failure.retryAfterMs = retryAfterMs
  }
  const requestId = headers.get('x-request-id') ?? headers.get('request-id')
  if (requestId !== null) failure.requestId = requestId
  return failure
}

const TYPE_CODES: readonly [RegExp, LlmFailureCode][] = [
  [/rate.?limit|quota/i, 'RATE_LIMIT'],
  [/auth|api.?key|permission/i, 'AUTH'],
  [/not.?found/i, 'NOT_FOUND'],
  [/timeout|timed.?out/i, 'TIMEOUT'],
  [/content.?(filter|policy)/i, 'CONTENT_FILTER'],
  [/invalid.?request|bad.?request/i, 'BAD_REQUEST'],
]

/**
 * The failure of a provider `error` object, mapped like an HTTP error: "openai: <where>: <message>", where `where`
 * is `stream error` (an in-stream event) unless the caller names another place.
 */
export function streamFailure(error: unknown, where = 'stream error'): LlmFailure {
  const fields = (typeof error === 'object' && error !== null ? error : { message: String(error) }) as Record<string, unknown>
  const message = typeof fields.message === 'string' ? fields.message : JSON.stringify(error)
  const status = typeof fields.status === 'number' ? fields.status : typeof fields.code === 'number' ? fields.code : undefined
  const label = [fields.code, fields.type].filter(part => typeof part === 'string').join(' ')
  let code: LlmFailureCode
  if (namesContextWindow(`${label} ${message}`)) code = 'CONTEXT_WINDOW_EXCEEDED'
  else if (status !== undefined) code = codeForStatus(status)
  else code = TYPE_CODES.find(([pattern]) => pattern.test(label))?.[1] ?? 'PROVIDER'
  return { code, message: `openai: ${where}: ${message}`, ...(status === undefined ? {} : { status }) }
}

/** The failure of a request that never got a response, or lost it: `NETWORK`, with the root cause's message. */
export function networkFailure(error: unknown): LlmFailure {
  const cause = (error as { cause?: unknown } | null)?.cause
  const root = cause instanceof Error ? cause : error
  const message = root instanceof Error ? root.message : String(root)
  return { code: 'NETWORK', message: `openai: network error: ${message}` }
}
