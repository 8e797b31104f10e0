/**
 * The event vocabulary (spec 01 §2.1–§2.2, §2.4): the core types, the surface class, the type-name grammar, and the
 * two type-name errors that live append, `registerEventType` and `prepare` share.
 */
import { printValue, SessionError, seedError } from './errors.ts'
import type { SessionEventType, SurfaceEventType } from './types.ts'

const CORE_TYPES = [
  'turn/start', 'turn/end', 'step/start', 'step/end', 'system/message', 'user/message', 'assistant/chunk',
  'assistant/message', 'tool/call', 'tool/result', 'todo/write', 'request/header', 'request/context', 'session/end-seed',
] as const

/**
 * @internal One of the 14 core types. `SessionEventType` also holds every type plugins merge into `SessionEventMap`,
 * so tables over the core vocabulary are keyed by this union instead.
 */
export type CoreEventType = (typeof CORE_TYPES)[number]

/** The 14 core event types, in 01 §2.1 order (frozen). */
export const CORE_SESSION_EVENT_TYPES: readonly SessionEventType[] = Object.freeze(CORE_TYPES)

const CORE_TYPE_SET: ReadonlySet<string> = new Set(CORE_TYPES)

/** @internal True iff `type` is one of the 14 core types. */
export function isCoreEventType(type: string): type is CoreEventType {
  return CORE_TYPE_SET.has(type)
}

/** True iff `type` is one of the four surface types (01 §2.1). */
export function isSurfaceType(type: string): type is SurfaceEventType {
  return type === 'user/message' || type === 'assistant/message' || type === 'tool/result' || type === 'system/message'
}

const TYPE_NAME = /^[a-z0-9][a-z0-9_-]*(\/[a-z0-9][a-z0-9_-]*)+$/
/** Names already matched, so the append hot path skips the regular expression (bounded: plugins add few types). */
const knownGoodNames = new Set<string>()
/** The last name that passed: a run of same-type appends (streamed chunks) skips even the set lookup. */
let lastGoodName = 'turn/start'

/** True iff `type` is a string matching the event type grammar of 01 §2.2 (it always contains a `/`). */
export function isValidEventTypeName(type: unknown): boolean {
  if (type === lastGoodName) return true
  if (typeof type !== 'string') return false
  if (!knownGoodNames.has(type)) {
    if (!TYPE_NAME.test(type)) return false
    if (knownGoodNames.size < 4096) knownGoodNames.add(type)
  }
  lastGoodName = type
  return true
}

/** @internal The 01 §2.2 message for a bad type name: `event type "<type>" is invalid`. */
export function invalidTypeNameMessage(type: unknown): string {
  return `event type "${printValue(type)}" is invalid`
}

/**
 * @internal Asserts `type` is a valid event type name (01 §2.2).
 * @throws SessionError `INVALID_EVENT` `event type "<type>" is invalid`.
 */
export function assertEventTypeName(type: unknown): asserts type is string {
  if (!isValidEventTypeName(type)) throw new SessionError('INVALID_EVENT', invalidTypeNameMessage(type))
}

/**
 * @internal The 01 §3.1 step-3 error for a type the store does not know, with the seed prefix and `index` when the
 * event is seed entry `index` (01 §6.1 step 4).
 */
export function unknownEventTypeError(type: string, index?: number): SessionError {
  const message = `event type "${type}" is not registered with the session store; register it or mark the event ignorable`
  return index === undefined ? new SessionError('UNKNOWN_EVENT_TYPE', message) : seedError('UNKNOWN_EVENT_TYPE', message, index)
}
