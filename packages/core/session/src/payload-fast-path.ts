/**
 * Fast paths of the payload validator (01 §2.3): the payloads nearly every turn holds — one-token `assistant/chunk`
 * deltas, the small structural events, and plain user, assistant and tool-result messages — checked with direct
 * reads. A fast path only ever accepts: it returns true for a payload the table in `payload.ts` accepts, and false
 * for anything else, valid or not, which then goes through the table (the only source of messages). A restore admits
 * thousands of these before the table's combinators are optimised, and each combinator level is a call.
 */
import { isObj, isSafeInt, type Obj } from './guards.ts'

const isArray = Array.isArray

/**
 * True only for a valid `assistant/chunk` payload whose chunk is a `text-delta`, `reasoning-delta` or
 * `tool-call-delta` (the same rules as the table, checked with direct reads). Anything else, valid or not, returns
 * false and goes through the table, which alone produces messages.
 */
function isStreamingDelta(d: unknown): boolean {
  if (!isObj(d)) return false
  const { turn, step, chunk } = d
  if (!isObj(chunk) || !isDeltaPosition(turn, step, chunk.index)) return false
  const { type } = chunk
  if (type === 'text-delta' || type === 'reasoning-delta') {
    if (typeof chunk.text !== 'string') return false
  } else if (type === 'tool-call-delta') {
    const { name } = chunk
    if (typeof chunk.id !== 'string' || (name !== undefined && typeof name !== 'string') || typeof chunk.argumentsDelta !== 'string') {
      return false
    }
  } else {
    return false
  }
  // No key besides turn, step and chunk (the chunk itself is open); for-in counts without allocating.
  let keys = 0
  for (const key in d) {
    if (key !== 'turn' && key !== 'step' && key !== 'chunk') return false
    keys++
  }
  return keys === 3
}

const isPositiveInt = (v: unknown): boolean => isSafeInt(v) && v > 0

/**
 * @internal The numbers of a streaming delta's payload are valid (01 §2.3): positive safe-integer `turn` and `step`,
 * a non-negative safe-integer chunk `index`. Shared with the restore of a packed chunk run, whose members differ only
 * in their fragment.
 */
export function isDeltaPosition(turn: unknown, step: unknown, index: unknown): boolean {
  return isPositiveInt(turn) && isPositiveInt(step) && isSafeInt(index) && index >= 0
}

/**
 * @internal How many keys a for-in over `v` visits: its own keys, plus any enumerable key a polluted prototype adds.
 * The table's unknown-key check and the fast paths count with this one function, so they count alike.
 */
export function forInCount(v: Obj): number {
  let n = 0
  for (const _ in v) n++
  return n
}

const isNonEmptyString = (v: unknown): boolean => typeof v === 'string' && v.length > 0
/** The `turn/end` reasons whose variant is `{kind}` alone. */
const KIND_ONLY_REASONS: ReadonlySet<unknown> = new Set(['completed', 'blocked', 'max-tokens', 'max-steps', 'interrupted', 'forked'])

/**
 * True only for a valid payload of the small structural types every turn holds (`turn/start`, `turn/end` with a
 * `{kind}`-only reason, `step/start`, `step/end`, `tool/call`), checked with direct reads; anything else returns
 * false and goes through the table. A restore admits thousands of these before the table's code is optimised.
 */
function isPlainStructural(type: string, d: unknown): boolean {
  if (!isObj(d)) return false
  switch (type) {
    case 'step/start': case 'step/end':
      return isPositiveInt(d.turn) && isPositiveInt(d.step) && forInCount(d) === 2
    case 'turn/start':
      return isPositiveInt(d.turn) && forInCount(d) === 1
    case 'turn/end': {
      const r = d.reason
      return isPositiveInt(d.turn) && isObj(r) && KIND_ONLY_REASONS.has(r.kind) && forInCount(r) === 1 && forInCount(d) === 2
    }
    case 'tool/call':
      return isPositiveInt(d.turn) && isPositiveInt(d.step) && isNonEmptyString(d.callId) && isNonEmptyString(d.name)
        && typeof d.arguments === 'string' && forInCount(d) === 5
    default:
      return false
  }
}

const isNonNegativeInt = (v: unknown): boolean => isSafeInt(v) && v >= 0

/** `{type: 'text', text}` with a string text and nothing else (the table's text block). */
function isTextBlock(b: unknown): boolean {
  return isObj(b) && b.type === 'text' && typeof b.text === 'string' && forInCount(b) === 2
}

/** A text, reasoning or refusal block, or a tool-call block, each with exactly its keys. */
function isAssistantBlock(b: unknown): boolean {
  if (!isObj(b)) return false
  const { type } = b
  if (type === 'text' || type === 'reasoning' || type === 'refusal') return typeof b.text === 'string' && forInCount(b) === 2
  return type === 'tool-call' && isNonEmptyString(b.id) && isNonEmptyString(b.name) && typeof b.arguments === 'string' && forInCount(b) === 4
}

/** A `usage` of non-negative safe integers: the two required counts and any of the three optional ones. */
function isUsage(u: unknown): boolean {
  if (!isObj(u) || !isNonNegativeInt(u.inputTokens) || !isNonNegativeInt(u.outputTokens)) return false
  const a = optionalCount(u.cacheReadTokens)
  const b = optionalCount(u.cacheWriteTokens)
  const c = optionalCount(u.reasoningTokens)
  return a >= 0 && b >= 0 && c >= 0 && forInCount(u) === 2 + a + b + c
}

/** 0 for an absent optional count, 1 for a valid one, -1 for anything else. */
function optionalCount(v: unknown): number {
  return v === undefined ? 0 : isNonNegativeInt(v) ? 1 : -1
}

/** `user/message` with text blocks only and a `{kind: 'user'}` source. */
function isPlainUserMessage(m: unknown): boolean {
  if (!isObj(m) || !isNonEmptyString(m.id) || m.role !== 'user' || forInCount(m) !== 4) return false
  const { content, source } = m
  if (!isArray(content) || content.length === 0) return false
  for (let i = 0; i < content.length; i++) if (!isTextBlock(content[i])) return false
  return isObj(source) && source.kind === 'user' && forInCount(source) === 1
}

/** `assistant/message` with text, reasoning, refusal and tool-call blocks and a model source. */
function isPlainAssistantMessage(d: unknown): boolean {
  if (!isObj(d) || !isPositiveInt(d.turn) || !isPositiveInt(d.step)) return false
  const { usage, interrupted, usageMissing, rawFinishReason } = d
  let present = 3
  if (usage !== undefined) {
    if (!isUsage(usage)) return false
    present++
  }
  if (interrupted !== undefined) {
    if (interrupted !== true) return false
    present++
  }
  if (usageMissing !== undefined) {
    if (usageMissing !== true || usage !== undefined) return false
    present++
  }
  if (rawFinishReason !== undefined) {
    if (!isNonEmptyString(rawFinishReason)) return false
    present++
  }
  if (forInCount(d) !== present) return false
  const m = d.message
  if (!isObj(m) || !isNonEmptyString(m.id) || m.role !== 'assistant' || forInCount(m) !== 4) return false
  const { content, source: s } = m
  if (!isArray(content)) return false
  for (let i = 0; i < content.length; i++) if (!isAssistantBlock(content[i])) return false
  return isObj(s) && s.kind === 'model' && isNonEmptyString(s.provider) && isNonEmptyString(s.model)
    && forInCount(s) === (s.replayState === undefined ? 3 : 4)
}

/** `tool/result` whose one tool-result block holds text blocks only. */
function isPlainToolResult(d: unknown): boolean {
  if (!isObj(d) || !isPositiveInt(d.turn) || !isPositiveInt(d.step)) return false
  const { error } = d
  let present = 3
  if (error !== undefined) {
    if (!isObj(error) || !isNonEmptyString(error.name) || !isNonEmptyString(error.code) || forInCount(error) !== 2) return false
    present++
  }
  if (d.meta !== undefined) present++
  if (forInCount(d) !== present) return false
  const m = d.message
  if (!isObj(m) || !isNonEmptyString(m.id) || m.role !== 'user' || forInCount(m) !== 4) return false
  const { content, source: s } = m
  if (!isObj(s) || s.kind !== 'tool' || !isNonEmptyString(s.callId) || forInCount(s) !== 2) return false
  if (!isArray(content) || content.length !== 1) return false
  const b = content[0]
  if (!isObj(b) || b.type !== 'tool-result' || !isNonEmptyString(b.toolCallId) || b.toolCallId !== s.callId) return false
  if (b.isError !== undefined && typeof b.isError !== 'boolean') return false
  if (forInCount(b) !== (b.isError === undefined ? 3 : 4)) return false
  const inner = b.content
  if (!isArray(inner)) return false
  for (let i = 0; i < inner.length; i++) if (!isTextBlock(inner[i])) return false
  return true
}

/** @internal True only for a payload of `type` that a fast path proves valid; false sends it to the table. */
export function isPlainPayload(type: string, d: unknown): boolean {
  switch (type) {
    case 'assistant/chunk':
      return isStreamingDelta(d)
    case 'user/message':
      return isPlainUserMessage(d)
    case 'assistant/message':
      return isPlainAssistantMessage(d)
    case 'tool/result':
      return isPlainToolResult(d)
    default:
      return isPlainStructural(type, d)
  }
}
