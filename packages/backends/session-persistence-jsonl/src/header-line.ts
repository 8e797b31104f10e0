/**
 * The header line (02 §5 "Lines"): `<crc> {"type":"session","version":V,"incarnation":"<uuid>","id":…,"framing":2}`
 * followed by the other `SessionHeader` fields in the header object's order (framing 2), or the same JSON without
 * prefix and without `framing` (framing 1, older files). Readers strip `type`, `incarnation` and `framing`; the
 * coordinator checks a header defect (its checksum) first, then the version, then the store-level problem reported
 * here, then core's `assertSessionHeader`.
 */
import type { SessionHeader } from '@logbook/session'
import { recordChecksum, SessionFormatUnsupportedError } from '@logbook/session-persistence'
import { CURRENT_FRAMING, frameLine, LEGACY_FRAMING, unframeText, type Framing } from './framing.ts'
import { isEncodedAs, projectKey } from './layout.ts'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** The framed header line (no newline) for `header` and a fresh `incarnation`, in the current framing. */
export function encodeHeaderLine(header: SessionHeader, incarnation: string): string {
  const { version, id, ...rest } = header
  const text = JSON.stringify({ type: 'session', version, incarnation, id, framing: CURRENT_FRAMING, ...rest })
  return frameLine(text, recordChecksum(text), CURRENT_FRAMING).slice(0, -1)
}

/** The header line of a session file as read: its text without newline and whether a newline ended it. */
export interface HeaderLine {
  readonly text: string
  readonly complete: boolean
}

/** A header line as decoded. */
export interface DecodedHeaderLine {
  /** The parsed header without `type`, `incarnation` and `framing`; undefined when the line cannot be used. */
  readonly header: Record<string, unknown> | undefined
  /** The stored incarnation when it is a UUID, else `''`. */
  readonly incarnation: string
  /** The framing the file's records use, once the header line says so. */
  readonly framing: Framing | undefined
  /** Store-level problem (`type`, incarnation, framing, directory mismatch): `SESSION_CORRUPT` after the version check. */
  readonly problem: string | undefined
  /** The line cannot be trusted at all (its checksum fails): `SESSION_CORRUPT` before the version is read. */
  readonly defect: string | undefined
  /** A framing newer than this build reads (the file was written by a newer Logbook). */
  readonly newerFraming: number | undefined
}

/** Where the file was found: its project directory name and session directory name. */
export interface FoundAt {
  readonly projectDir: string
  readonly sessionDir: string
}

const unusable = (fields: { problem?: string; defect?: string }): DecodedHeaderLine => ({
  header: undefined, incarnation: '', framing: undefined, problem: fields.problem, defect: fields.defect, newerFraming: undefined,
})

/** The JSON text of the header line and its framing, or why the line is unusable. */
function unframeHeader(line: HeaderLine): { json: string; framing: Framing } | DecodedHeaderLine {
  if (!line.complete) return unusable({ problem: 'the header line is not terminated by a newline' })
  if (line.text.startsWith('{')) return { json: line.text, framing: LEGACY_FRAMING }
  const unframed = unframeText(line.text)
  if ('problem' in unframed) return unusable({ defect: `header ${unframed.problem}` })
  return { json: unframed.text, framing: CURRENT_FRAMING }
}

/**
 * Parses and checks a header line against the directories it was found in; `line` undefined means the file is
 * empty (0 bytes). Never throws; an unusable line yields `header: undefined` and a problem or defect.
 */
export function decodeHeaderLine(line: HeaderLine | undefined, at: FoundAt): DecodedHeaderLine {
  if (line === undefined) return unusable({ problem: 'the session file is empty' })
  const unframed = unframeHeader(line)
  if (!('json' in unframed)) return unframed
  let value: unknown
  try {
    value = JSON.parse(unframed.json)
  } catch {
    return unusable({ problem: 'the header line is not valid JSON' })
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return unusable({ problem: 'the header line is not a JSON object' })
  }
  const { type, incarnation, framing: declared, ...header } = value as Record<string, unknown>
  const framing = unframed.framing
  const newer = framing === CURRENT_FRAMING && typeof declared === 'number' && declared > CURRENT_FRAMING ? declared : undefined
  const validIncarnation = typeof incarnation === 'string' && UUID.test(incarnation) ? incarnation : ''
  return {
    header,
    incarnation: validIncarnation,
    framing,
    problem: newer === undefined ? headerLineProblem(type, validIncarnation, declared, framing, header, at) : undefined,
    defect: undefined,
    newerFraming: newer,
  }
}

/** `validIncarnation` is the stored incarnation when it is a UUID, else `''`. */
function headerLineProblem(
  type: unknown, validIncarnation: string, declared: unknown, framing: Framing, header: Record<string, unknown>, at: FoundAt,
): string | undefined {
  if (type !== 'session') return `header type must be "session", got ${JSON.stringify(type) ?? 'nothing'}`
  if (validIncarnation === '') return 'header incarnation must be a UUID'
  if (framing === LEGACY_FRAMING && declared !== undefined) return 'a header with a framing field needs its checksum prefix'
  if (framing === CURRENT_FRAMING && declared !== CURRENT_FRAMING) {
    return `header framing must be ${CURRENT_FRAMING}, got ${JSON.stringify(declared) ?? 'nothing'}`
  }
  const { id, cwd } = header
  if (typeof id === 'string' && !isEncodedAs(id, at.sessionDir)) {
    return `header id "${id}" does not match directory ${at.sessionDir}`
  }
  if ((cwd === undefined || typeof cwd === 'string') && projectKey(cwd) !== at.projectDir) {
    return `header cwd ${JSON.stringify(cwd) ?? '(none)'} does not match project directory ${at.projectDir}`
  }
  return undefined
}

/**
 * `SESSION_FORMAT_UNSUPPORTED` (`newer`) for a file whose framing this build cannot read:
 * `session "<id>" was written by a newer Logbook (store framing F, this build reads 2): upgrade Logbook (raw log: …)`.
 */
export function newerFramingError(sessionId: string, framing: number, file: string): SessionFormatUnsupportedError {
  return new SessionFormatUnsupportedError(
    `session "${sessionId}" was written by a newer Logbook (store framing ${framing}, this build reads ${CURRENT_FRAMING}): upgrade Logbook (raw log: ${file})`,
    { sessionId, location: file, direction: 'newer', found: framing, supported: CURRENT_FRAMING, details: { framing } },
  )
}
