/**
 * The read-path checks of spec 02 §4.1, in their order: header version → header shape, id and identity →
 * classification (clean / torn tail / corruption) → unknown non-ignorable types → lineage. One walk over the records
 * checks envelopes and contiguity and collects the valid events; nothing here writes.
 */
import {
  assertSessionHeader,
  deepFreeze,
  isSurfaceType,
  SESSION_FORMAT_VERSION,
  type SessionEvent,
  type SessionHeader,
} from '@logbook/session'
import type { PhysicalScan, ScanRecord } from './backend.ts'
import { formatVersionError, SessionPersistenceCorruptionError, unknownEventTypeError } from './errors.ts'
import { isTurnEndEvidence } from './record-codec.ts'
import type { TornTailReport } from './types.ts'
import { describe } from './util.ts'

/** Everything a read path learns from one scan. */
export interface StoredState<M> {
  /** Validated, deep-frozen header. */
  readonly header: SessionHeader
  /** Valid events from `startSeq` (the torn tail excluded), as decoded (not frozen unless the backend froze them). */
  readonly events: SessionEvent[]
  readonly startSeq: number
  /** `startSeq + events.length`: the stored cursor once a torn tail is cut. */
  readonly nextSeq: number
  /** The torn tail, when there is one: its first record's marker and the report. */
  readonly torn: { readonly marker: M; readonly report: TornTailReport } | null
  readonly scan: PhysicalScan<M>
}

const TYPE_PATTERN = /^[a-z0-9][a-z0-9_-]*(\/[a-z0-9][a-z0-9_-]*)+$/
const ENVELOPE_KEYS: ReadonlySet<string> = new Set(['type', 'seq', 'time', 'data', 'ignorable', 'surfaceOp', 'sourceEventSeqs'])

function corrupt(id: string, detail: string, scan: PhysicalScan<unknown>, extra: { line?: number; seq?: number; cause?: unknown } = {}) {
  const where = scan.location === undefined ? '' : ` (raw log: ${scan.location})`
  return new SessionPersistenceCorruptionError(`session "${id}": corrupt log: ${detail}${where}`, {
    sessionId: id,
    detail,
    ...(scan.location === undefined ? {} : { location: scan.location }),
    ...extra,
  })
}

/** Check the stored header in §4.1 order and return it frozen. @throws `SESSION_FORMAT_UNSUPPORTED`, `SESSION_CORRUPT`. */
export function checkStoredHeader(id: string, scan: PhysicalScan<unknown>): SessionHeader {
  const raw = scan.header
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw corrupt(id, 'the header is not a JSON object', scan)
  }
  const version = (raw as { version?: unknown }).version
  if (typeof version === 'number' && version !== SESSION_FORMAT_VERSION) {
    throw formatVersionError(id, version, SESSION_FORMAT_VERSION, scan.location)
  }
  if (scan.headerProblem !== undefined) throw corrupt(id, scan.headerProblem, scan)
  try {
    assertSessionHeader(raw, id as SessionHeader['id'])
  } catch (error) {
    throw corrupt(id, `bad header: ${describe(error)}`, scan, { cause: error })
  }
  return deepFreeze(raw as SessionHeader)
}

/** The §2.2 envelope problem of a decoded event expected at `expected`, or `undefined` when valid. */
function envelopeProblem(event: unknown, expected: number, seenTypes: Set<string>): string | undefined {
  if (typeof event !== 'object' || event === null || Array.isArray(event)) return 'event must be an object'
  const e = event as Record<string, unknown>
  for (const key in e) if (!ENVELOPE_KEYS.has(key)) return `unknown key "${key}"`
  const type = e.type
  if (typeof type !== 'string') return 'type must be a string'
  if (!seenTypes.has(type)) {
    if (!TYPE_PATTERN.test(type)) return `event type ${JSON.stringify(type)} is invalid`
    seenTypes.add(type)
  }
  const seq = e.seq
  if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 0) return 'seq must be a non-negative safe integer'
  if (seq !== expected) return `seq ${seq} is not contiguous; expected ${expected}`
  const time = e.time
  if (typeof time !== 'number' || !Number.isSafeInteger(time) || time < 0) return 'time must be a non-negative safe integer'
  if (e.data === undefined) return 'data is required'
  if (e.ignorable !== undefined && e.ignorable !== true) return 'ignorable must be true when present'
  if (isSurfaceType(type)) {
    if (e.ignorable !== undefined) return `event "${type}": surface events cannot be ignorable`
  } else if (e.surfaceOp !== undefined || e.sourceEventSeqs !== undefined) {
    return `event "${type}" is not a surface type and cannot carry surface metadata`
  }
  return undefined
}

function recordProblem(record: ScanRecord<unknown>, expected: number, seenTypes: Set<string>): string | undefined {
  if (!record.result.ok) return record.result.reason
  if (!record.complete) return 'incomplete record (no terminating newline)'
  const { events } = record.result
  if (events.length === 0) return 'record holds no events'
  for (let i = 0; i < events.length; i++) {
    const problem = envelopeProblem(events[i], expected + i, seenTypes)
    if (problem !== undefined) return problem
  }
  return undefined
}

function isEvidence(record: ScanRecord<unknown>): boolean {
  if (!record.complete) return false
  if (!record.result.ok) return record.result.turnEndEvidence
  const { events } = record.result
  return events.length === 1 && isTurnEndEvidence(events[0])
}

/**
 * Run every §4.1 check on one scan and return the valid prefix.
 * @throws `SESSION_FORMAT_UNSUPPORTED` (version, unknown non-ignorable type), `SESSION_CORRUPT` (header, corruption,
 * lineage). A torn tail is reported, never thrown.
 */
export function readStored<M>(id: string, scan: PhysicalScan<M>, isKnownType: (type: string) => boolean): StoredState<M> {
  const header = checkStoredHeader(id, scan)
  const { records } = scan
  const events: SessionEvent[] = []
  const seenTypes = new Set<string>()
  const known = new Map<string, boolean>()
  let expected = scan.startSeq
  let unknownType: string | undefined
  let defect = -1
  let defectDetail = ''
  let defectSeq = expected

  for (let r = 0; r < records.length; r++) {
    const record = records[r]!
    if (defect < 0) {
      const problem = recordProblem(record, expected, seenTypes)
      if (problem === undefined) {
        for (const event of (record.result as { events: readonly SessionEvent[] }).events) {
          events.push(event)
          if (unknownType === undefined && event.ignorable !== true) {
            let isKnown = known.get(event.type)
            if (isKnown === undefined) known.set(event.type, isKnown = isKnownType(event.type))
            if (!isKnown) unknownType = event.type
          }
        }
        expected += (record.result as { events: readonly SessionEvent[] }).events.length
        continue
      }
      defect = r
      defectDetail = problem
      defectSeq = expected
    }
    if (isEvidence(record)) {
      const first = records[defect]!
      const at = first.line === undefined ? `seq ${defectSeq}` : `line ${first.line} (seq ${defectSeq})`
      const later = record.line === undefined ? 'a later record' : `line ${record.line}`
      throw corrupt(id, `${defectDetail} at ${at}, but ${later} is a turn/end`, scan, {
        ...(first.line === undefined ? {} : { line: first.line }),
        seq: defectSeq,
      })
    }
  }

  if (unknownType !== undefined) throw unknownEventTypeError(id, unknownType, SESSION_FORMAT_VERSION, scan.location)

  if (header.isSeeded === true && header.seedLength !== undefined && header.seedLength >= scan.startSeq) {
    const marker = events[header.seedLength - scan.startSeq] as { type?: string; data?: { inherited?: unknown } } | undefined
    if (marker?.type !== 'session/end-seed' || marker.data?.inherited !== true) {
      throw corrupt(id, `seeded session lacks session/end-seed {inherited: true} at seq ${header.seedLength}`, scan, {
        seq: header.seedLength,
      })
    }
  }

  let torn: StoredState<M>['torn'] = null
  if (defect >= 0) {
    let droppedEvents = 0
    for (let r = defect; r < records.length; r++) {
      const record = records[r]!
      // Store metadata counts only the last record, the one a crash can tear; a mid-log undecodable record counts 0.
      const torn = r === records.length - 1 ? record.eventCount ?? 0 : 0
      droppedEvents += record.result.ok ? record.result.events.length : torn
    }
    torn = {
      marker: records[defect]!.marker,
      report: Object.freeze({ fromSeq: expected, droppedRecords: records.length - defect, droppedEvents, detail: defectDetail }),
    }
  }
  return { header, events, startSeq: scan.startSeq, nextSeq: expected, torn, scan }
}
