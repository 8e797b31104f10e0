/**
 * The header line (02 §5 "Lines"): `{"type":"session","version":V,"incarnation":"<uuid>","id":…}` followed by the
 * other `SessionHeader` fields in the header object's order. Readers strip `type` and `incarnation`; the coordinator
 * checks the version first, then the store-level problem reported here, then core's `assertSessionHeader`.
 */
import type { SessionHeader } from '@logbook/session'
import { encodeId, projectKey } from './layout.ts'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** The header line's text (no newline) for `header` and a fresh `incarnation`. */
export function encodeHeaderLine(header: SessionHeader, incarnation: string): string {
  const { version, id, ...rest } = header
  return JSON.stringify({ type: 'session', version, incarnation, id, ...rest })
}

/** A header line as read back. */
export interface DecodedHeaderLine {
  /** The parsed header without `type` and `incarnation`; undefined when the line is missing, torn or not an object. */
  readonly header: Record<string, unknown> | undefined
  /** The stored incarnation when it is a UUID, else `''`. */
  readonly incarnation: string
  /** Store-level problem (`type`, incarnation, directory mismatch), reported as `SESSION_CORRUPT` after the version check. */
  readonly problem: string | undefined
}

/** Where the file was found: its project directory name and session directory name. */
export interface FoundAt {
  readonly projectDir: string
  readonly sessionDir: string
}

/**
 * Parses and checks a header line against the directories it was found in. Never throws; an unusable line yields
 * `header: undefined` and a problem.
 */
export function decodeHeaderLine(text: string | undefined, complete: boolean, at: FoundAt): DecodedHeaderLine {
  if (text === undefined || text === '') return { header: undefined, incarnation: '', problem: 'the session file is empty' }
  if (!complete) return { header: undefined, incarnation: '', problem: 'the header line is not terminated' }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return { header: undefined, incarnation: '', problem: 'the header line is not valid JSON' }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { header: undefined, incarnation: '', problem: 'the header line is not a JSON object' }
  }
  const { type, incarnation, ...header } = value as Record<string, unknown>
  const validIncarnation = typeof incarnation === 'string' && UUID.test(incarnation) ? incarnation : ''
  return { header, incarnation: validIncarnation, problem: headerLineProblem(type, incarnation, header, at) }
}

function headerLineProblem(type: unknown, incarnation: unknown, header: Record<string, unknown>, at: FoundAt): string | undefined {
  if (type !== 'session') return `header type must be "session", got ${JSON.stringify(type) ?? 'nothing'}`
  if (typeof incarnation !== 'string' || !UUID.test(incarnation)) return 'header incarnation must be a UUID'
  const { id, cwd } = header
  if (typeof id === 'string' && encodeId(id) !== at.sessionDir) {
    return `header id "${id}" does not match directory ${at.sessionDir}`
  }
  if ((cwd === undefined || typeof cwd === 'string') && projectKey(cwd) !== at.projectDir) {
    return `header cwd ${JSON.stringify(cwd) ?? '(none)'} does not match project directory ${at.projectDir}`
  }
  return undefined
}
