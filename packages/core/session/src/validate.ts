/**
 * Event validation outside the payload (spec 01 §2.2, §5.2, §1.8): the envelope detail of 01 §5.2 step 2, the content
 * step (type name, surface `ignorable`, then the payload of `payload.ts`), the event-local surface checks V1–V10
 * (01 §4.2) and `assertSessionEvent`, which runs them all on one stored event.
 */
import { SessionError } from './errors.ts'
import { isObj, isSafeInt, type Obj } from './guards.ts'
import { isJsonValueAt } from './json.ts'
import { payloadProblem } from './payload.ts'
import type { SessionEvent } from './types.ts'
import { invalidTypeNameMessage, isSurfaceType, isValidEventTypeName } from './vocabulary.ts'

// ------------------------------------------------------------------------------------------------------------------
// Envelope (01 §2.2, §5.2 step 2), content (§5.2 step 4) and event-local surface checks (§4.2 V1–V10)

/** An envelope key of 01 §2.2 (a `switch`: no allocation and no set lookup per key on the restore path). */
function isEnvelopeKey(key: string): boolean {
  switch (key) {
    case 'type': case 'seq': case 'time': case 'data': case 'ignorable': case 'surfaceOp': case 'sourceEventSeqs':
      return true
    default:
      return false
  }
}

/**
 * The 01 §5.2 step-2 detail for a value that is not a well-formed envelope (`unknown key "foo"`, …), or `undefined`.
 * `surfaceOp` and `sourceEventSeqs` are known keys on every type here (V1–V2 reject them later).
 */
export function envelopeProblem(value: unknown): string | undefined {
  if (!isObj(value)) return 'event must be an object'
  // Own enumerable string keys, as `Object.keys` lists them, without building that array.
  for (const k in value) if (!isEnvelopeKey(k) && Object.hasOwn(value, k)) return `unknown key "${k}"`
  if (typeof value.type !== 'string') return 'type must be a string'
  if (!isSafeInt(value.seq) || value.seq < 0) return 'seq must be a non-negative safe integer'
  if (!isSafeInt(value.time) || value.time < 0) return 'time must be a non-negative safe integer'
  if (value.data === undefined) return 'data is required'
  if (value.ignorable !== undefined && value.ignorable !== true) return 'ignorable must be true when present'
  return undefined
}

/**
 * The 01 §5.2 step-4 message (`INVALID_EVENT`) for a well-formed envelope: an invalid type name, `ignorable` on a
 * surface type, or the payload (§2.3); `undefined` when the content is valid.
 */
export function contentProblem(event: { readonly type: string; readonly data: unknown; readonly ignorable?: unknown }): string | undefined {
  const type = event.type
  if (!isValidEventTypeName(type)) return invalidTypeNameMessage(type)
  if (event.ignorable !== undefined && isSurfaceType(type)) return `event "${type}": surface events cannot be ignorable`
  return payloadProblem(type, event.data)
}

const isReplaceOp = (op: Obj): boolean => {
  if (op.op !== 'replace' || !isSafeInt(op.start) || op.start < 0 || !isSafeInt(op.end) || op.end < 0) return false
  let n = 0
  for (const k in op) if (Object.hasOwn(op, k)) n++
  return n === 3
}

/**
 * The first of V1–V10 (01 §4.2) that the candidate breaks, as its exact message (no prefix), or `undefined`.
 * `present` says which of the two fields the candidate carries; `seq` is the candidate's seq.
 */
export function surfaceMetaProblem(
  type: string, seq: number, surfaceOp: unknown, sourceEventSeqs: unknown,
  present: { readonly op: boolean; readonly sources: boolean },
): string | undefined {
  if (!isSurfaceType(type)) {
    if (present.op) return `event "${type}" is not a surface type and cannot carry surfaceOp`
    if (present.sources) return `event "${type}" is not a surface type and cannot carry sourceEventSeqs`
    return undefined
  }
  if (!present.op) return `event "${type}" is a surface type and requires surfaceOp`
  if (surfaceOp !== 'append') {
    if (!isObj(surfaceOp)) return `event "${type}": invalid surfaceOp`
    if (!isReplaceOp(surfaceOp)) return `event "${type}": invalid replace surfaceOp`
  }
  if (!present.sources) return undefined
  if (!Array.isArray(sourceEventSeqs)) return 'sourceEventSeqs must be an array'
  const n = sourceEventSeqs.length
  if (n === 0) return type === 'assistant/message' ? undefined : 'sourceEventSeqs must not be empty except on assistant/message'
  let ascending = true
  let firstLate: number | undefined
  let prev = -1
  for (let i = 0; i < n; i++) {
    const x: unknown = sourceEventSeqs[i]
    if (!isSafeInt(x) || x < 0) return 'sourceEventSeqs must contain only non-negative safe integers'
    if (x <= prev) ascending = false
    prev = x
    if (firstLate === undefined && x >= seq) firstLate = x
  }
  if (!ascending) {
    const seen = new Set<number>()
    for (let i = 0; i < n; i++) {
      const x = sourceEventSeqs[i] as number
      if (seen.has(x)) return `sourceEventSeqs contains duplicate ${x}`
      seen.add(x)
    }
  }
  if (firstLate !== undefined) return `sourceEventSeqs must reference earlier events: ${firstLate} >= ${seq}`
  return undefined
}

/**
 * Asserts `value` is a valid stored event on its own: lossless JSON in place, then the envelope, the content and
 * V1–V10 (01 §1.8), with the 01 §5.2 messages minus the seed prefix. No node (V11–V21) or contiguity check runs.
 * @throws SessionError `NOT_JSON`, `INVALID_EVENT` or `INVALID_SURFACE`.
 */
export function assertSessionEvent(value: unknown): asserts value is SessionEvent {
  if (!isJsonValueAt(value, 1)) throw new SessionError('NOT_JSON', 'is not lossless JSON')
  const envelope = envelopeProblem(value)
  if (envelope !== undefined) throw new SessionError('INVALID_EVENT', `invalid envelope: ${envelope}`)
  const event = value as Obj & { type: string; seq: number; data: unknown }
  const content = contentProblem(event)
  if (content !== undefined) throw new SessionError('INVALID_EVENT', content)
  const surface = surfaceMetaProblem(event.type, event.seq, event.surfaceOp, event.sourceEventSeqs, {
    op: event.surfaceOp !== undefined,
    sources: event.sourceEventSeqs !== undefined,
  })
  if (surface !== undefined) throw new SessionError('INVALID_SURFACE', surface)
}
