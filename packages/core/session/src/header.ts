/** Identifiers (01 §1.1) and the session header validator (01 §5.6). */
import { posix, win32 } from 'node:path'
import { printValue, SessionError } from './errors.ts'
import { checkParsedNumbers, isLosslessScalar, NOT_JSON, snapshotFrozen } from './json.ts'
import type { CallId as CallIdType, MessageId as MessageIdType, SessionHeader, SessionId as SessionIdType } from './types.ts'

/** The session format version stamped into new headers; the newest this build reads (01 §2.4). */
export const SESSION_FORMAT_VERSION = 2

/** Every session format version this build reads, oldest first: 1 (no format-2 shapes) and 2 (01 §2.4). */
export const SUPPORTED_SESSION_FORMAT_VERSIONS: readonly number[] = Object.freeze([1, SESSION_FORMAT_VERSION])

/** True iff `version` is a session format version this build reads (01 §2.4). */
export function isSupportedSessionFormat(version: unknown): boolean {
  return version === 1 || version === SESSION_FORMAT_VERSION
}

/** Brands a string as a `SessionId`; a cast only, with no check (use `isValidSessionId` to check). */
export function SessionId(id: string): SessionIdType {
  return id as SessionIdType
}

/** Brands a string as a `MessageId`; a cast only. */
export function MessageId(id: string): MessageIdType {
  return id as MessageIdType
}

/** Brands a string as a `CallId`; a cast only. */
export function CallId(id: string): CallIdType {
  return id as CallIdType
}

const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/

/** True iff `id` is a string matching `^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`, safe as a file name (01 §1.1). */
export function isValidSessionId(id: unknown): id is SessionIdType {
  return typeof id === 'string' && SESSION_ID.test(id)
}

const HEADER_FIELDS = new Set([
  'version', 'id', 'createdAt', 'cwd', 'parentSession', 'isSeeded', 'seedLength', 'origin', 'delegationDepth',
  'agentPreset', 'importedFrom',
])
const IMPORT_FIELDS = ['tool', 'file', 'sourceId', 'leaf'] as const
const IMPORT_FIELD_SET: ReadonlySet<string> = new Set(IMPORT_FIELDS)
const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

const isNonNegInt = (v: unknown): boolean => Number.isSafeInteger(v) && (v as number) >= 0

/** The 01 §5.6 check 13 message for `importedFrom`: a plain object, known keys, each string non-empty; `tool` required. */
function importProblem(source: unknown): string | undefined {
  if (!isPlainObject(source)) return 'session header importedFrom must be a plain object'
  for (const k of Object.keys(source)) if (!IMPORT_FIELD_SET.has(k)) return `session header importedFrom has unknown field "${k}"`
  for (const k of IMPORT_FIELDS) {
    const value = source[k]
    if ((value !== undefined || k === 'tool') && (typeof value !== 'string' || value.length === 0)) {
      return `session header importedFrom.${k} must be a non-empty string`
    }
  }
  return undefined
}

const NOT_PLAIN = 'session header must be a plain object'
const unknownField = (k: string): string => `session header has unknown field "${k}"`

/** The 01 §5.6 message of the first check (2–15) a lossless-JSON plain-object header fails, or `undefined`. */
function headerProblem(h: Record<string, unknown>, id: string): string | undefined {
  for (const k of Object.keys(h)) if (!HEADER_FIELDS.has(k)) return unknownField(k)
  return fieldProblem(h, id)
}

/** The 01 §5.6 message of the first of checks 3–15 a lossless-JSON plain-object header fails, or `undefined`. */
function fieldProblem(h: Record<string, unknown>, id: string): string | undefined {
  if (!isSupportedSessionFormat(h.version)) {
    return `session header version must be ${SUPPORTED_SESSION_FORMAT_VERSIONS.join(' or ')}, got ${String(h.version)}`
  }
  if (h.id !== id) return `session header id "${String(h.id)}" does not match session id "${id}"`
  if (!isNonNegInt(h.createdAt)) return 'session header createdAt must be a non-negative safe integer'
  const { cwd } = h
  if (cwd !== undefined && (typeof cwd !== 'string' || !(posix.isAbsolute(cwd) || win32.isAbsolute(cwd)))) {
    return 'session header cwd must be an absolute path'
  }
  if (h.parentSession !== undefined && !isValidSessionId(h.parentSession)) {
    return 'session header parentSession must be a valid session id'
  }
  if (h.isSeeded !== undefined && typeof h.isSeeded !== 'boolean') return 'session header isSeeded must be a boolean'
  if (h.seedLength !== undefined && !isNonNegInt(h.seedLength)) {
    return 'session header seedLength must be a non-negative safe integer'
  }
  if (h.origin !== undefined && h.origin !== 'subagent') return 'session header origin must be "subagent"'
  if (h.delegationDepth !== undefined && !isNonNegInt(h.delegationDepth)) {
    return 'session header delegationDepth must be a non-negative safe integer'
  }
  const { agentPreset } = h
  if (agentPreset !== undefined && (typeof agentPreset !== 'string' || agentPreset.length === 0)) {
    return 'session header agentPreset must be a non-empty string'
  }
  if (h.importedFrom !== undefined) {
    const problem = importProblem(h.importedFrom)
    if (problem !== undefined) return problem
  }
  if (h.isSeeded === true && (h.parentSession === undefined || h.seedLength === undefined)) {
    return 'seeded session header requires parentSession and seedLength'
  }
  if (h.seedLength !== undefined && h.isSeeded !== true) return 'session header seedLength requires isSeeded: true'
  return undefined
}

/**
 * @internal Asserts `id` is a valid session id (01 §1.1); the one source of this check for construction, `prepare`
 * and `fork`.
 * @throws SessionError `INVALID_SESSION_ID` `invalid session id "<id>"`.
 */
export function assertSessionId(id: unknown): asserts id is SessionIdType {
  if (!isValidSessionId(id)) throw new SessionError('INVALID_SESSION_ID', `invalid session id "${printValue(id)}"`)
}

/**
 * Asserts `value` is a valid header for session `id` (01 §5.6 checks 1–15, in order); a header that is not lossless
 * JSON fails check 1. The value is validated in a frozen copy, so each of its properties is read once.
 * @throws SessionError `INVALID_SESSION_ID` (checked first), then `INVALID_HEADER`.
 */
export function assertSessionHeader(value: unknown, id: SessionIdType): asserts value is SessionHeader {
  snapshotHeader(value, id)
}

/**
 * @internal Validates `value` as the header of session `id` (as `assertSessionHeader`) and returns a deep-frozen plain
 * copy, keys in the caller's order.
 * @throws SessionError `INVALID_SESSION_ID`, then `INVALID_HEADER`.
 */
export function snapshotHeader(value: unknown, id: SessionIdType): SessionHeader {
  assertSessionId(id)
  const copy = snapshotFrozen(value, 1)
  if (copy === NOT_JSON || !isPlainObject(copy)) throw new SessionError('INVALID_HEADER', NOT_PLAIN)
  const problem = headerProblem(copy, id)
  if (problem !== undefined) throw new SessionError('INVALID_HEADER', problem)
  return copy as unknown as SessionHeader
}

/**
 * Returns exactly the `SessionError` `assertSessionHeader(value, id)` would throw (01 §5.6: same checks, order, codes
 * and messages), or `undefined` when `value` is a valid header of session `id`, for a `value` that `JSON.parse`
 * returned (or a rest-destructured copy of one). It is checked in place, with no copy and nothing
 * allocated when it passes: a parse result has plain prototypes, data properties and no shared references, so only
 * its numbers and depth can break lossless JSON (check 1). Nothing is frozen. Never throws.
 */
export function parsedHeaderError(value: unknown, id: string): SessionError | undefined {
  if (!isValidSessionId(id)) return new SessionError('INVALID_SESSION_ID', `invalid session id "${printValue(id)}"`)
  if (!isPlainObject(value)) return new SessionError('INVALID_HEADER', NOT_PLAIN)
  let unknown: string | undefined
  // One pass: check 1 (lossless numbers, depth) over every value, and check 2's first unknown key, reported after it.
  for (const k in value) {
    const v = value[k]
    if (typeof v === 'number' ? !isLosslessScalar(v) : typeof v === 'object' && v !== null && !checkParsedNumbers(v, 2)) {
      return new SessionError('INVALID_HEADER', NOT_PLAIN)
    }
    if (unknown === undefined && !HEADER_FIELDS.has(k)) unknown = k
  }
  const problem = unknown !== undefined ? unknownField(unknown) : fieldProblem(value, id)
  return problem === undefined ? undefined : new SessionError('INVALID_HEADER', problem)
}
