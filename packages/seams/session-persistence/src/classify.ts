/**
 * The read-path checks of spec 02 §4.1, in their order: header version → header shape, id and identity →
 * classification (clean / torn tail / corruption) → unknown non-ignorable types → lineage. One walk over the records
 * checks envelopes and contiguity and collects the valid events; nothing here writes.
 */
import {
  assertSessionHeader,
  deepFreeze,
  EventLog,
  eventsView,
  isSurfaceType,
  isSupportedSessionFormat,
  SESSION_FORMAT_VERSION,
  type PackedRun,
  type SessionEvent,
  type SessionHeader,
} from '@logbook/session'
import type { PhysicalScan, ScanRecord } from './backend.ts'
import { about, formatVersionError, SessionPersistenceCorruptionError, unknownEventTypeError } from './errors.ts'
import { isTurnEndEvidence } from './record-codec.ts'
import type { TornTailReport } from './types.ts'
import { describe } from './util.ts'

/** Everything a read path learns from one scan. */
export interface StoredState<M> {
  /** Validated, deep-frozen header. */
  readonly header: SessionHeader
  /**
   * Valid events from `startSeq` (the torn tail excluded), as decoded (not frozen unless the backend froze them): a
   * read-only view whose packed chunk members are built, frozen, when read.
   */
  readonly events: readonly SessionEvent[]
  readonly startSeq: number
  /** `startSeq + events.length`: the stored cursor once a torn tail is cut. */
  readonly nextSeq: number
  /** The torn tail, when there is one: its first record's marker and the report. */
  readonly torn: { readonly marker: M; readonly report: TornTailReport } | null
  readonly scan: PhysicalScan<M>
}

/** `header.seedLength` when `header.isSeeded`, else 0 (02 §1.2 `inheritedEventCount`). */
export function inheritedCount(header: SessionHeader): number {
  return header.isSeeded === true ? header.seedLength ?? 0 : 0
}

/**
 * Why `events` (starting at seq `startSeq`) lack the lineage marker of a seeded session (02 §4.1): the event at seq
 * `seedLength` must be `session/end-seed {inherited: true}`. `undefined` when it is there.
 */
export function lineageMarkerAt(events: readonly unknown[], seedLength: number, startSeq: number): string | undefined {
  const marker = events[seedLength - startSeq] as { type?: unknown; data?: { inherited?: unknown } } | undefined
  if (marker?.type === 'session/end-seed' && marker.data?.inherited === true) return undefined
  return `must hold session/end-seed {inherited: true} at seq ${seedLength}`
}

const TYPE_PATTERN = /^[a-z0-9][a-z0-9_-]*(\/[a-z0-9][a-z0-9_-]*)+$/

/** What one walk knows about a type name, looked up once per name. */
interface TypeInfo {
  /** The name matches the envelope pattern (01 §2.2). */
  readonly valid: boolean
  readonly surface: boolean
  /** `ctx.sessions.isKnownEventType`, asked lazily (only for non-ignorable events). */
  known: boolean | undefined
}

function corrupt(id: string, detail: string, scan: PhysicalScan<unknown>, extra: { line?: number; seq?: number; cause?: unknown } = {}) {
  const where = scan.location === undefined ? '' : ` (raw log: ${scan.location})`
  return new SessionPersistenceCorruptionError(`${about(id)}corrupt log: ${detail}${where}`, {
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
  if (typeof version === 'number' && !isSupportedSessionFormat(version)) {
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

/** One §4.1 walk: the valid prefix, the first defect and the first unknown non-ignorable type among valid events. */
class Walk {
  readonly log: EventLog
  expected: number
  unknownType: string | undefined
  private readonly types = new Map<string, TypeInfo>()

  constructor(startSeq: number, private readonly isKnownType: (type: string) => boolean) {
    this.expected = startSeq
    this.log = new EventLog([], startSeq)
  }

  private info(type: string): TypeInfo {
    let info = this.types.get(type)
    if (info === undefined) {
      info = { valid: TYPE_PATTERN.test(type), surface: isSurfaceType(type), known: undefined }
      this.types.set(type, info)
    }
    return info
  }

  /** Note the type of a valid event for the unknown-type check (asked once per name). */
  private noteType(info: TypeInfo, type: string, ignorable: unknown): void {
    if (ignorable === true || this.unknownType !== undefined) return
    if (info.known === undefined) info.known = this.isKnownType(type)
    if (!info.known) this.unknownType = type
  }

  /** The 01 §2.2 envelope problem of a decoded event expected at `expected`, or `undefined` when valid. */
  private envelopeProblem(event: unknown, expected: number): string | undefined {
    if (typeof event !== 'object' || event === null || Array.isArray(event)) return 'event must be an object'
    const e = event as Record<string, unknown>
    const type = e['type']
    if (typeof type !== 'string') return 'type must be a string'
    const info = this.info(type)
    for (const key in e) {
      switch (key) {
        case 'type': case 'seq': case 'time': case 'data': case 'ignorable': continue
        case 'surfaceOp': case 'sourceEventSeqs':
          if (info.surface) continue
          return `event "${type}" is not a surface type and cannot carry surface metadata`
        default:
          return `unknown key "${key}"`
      }
    }
    if (!info.valid) return `event type ${JSON.stringify(type)} is invalid`
    const seq = e['seq']
    if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 0) return 'seq must be a non-negative safe integer'
    if (seq !== expected) return `seq ${seq} is not contiguous; expected ${expected}`
    const time = e['time']
    if (typeof time !== 'number' || !Number.isSafeInteger(time) || time < 0) return 'time must be a non-negative safe integer'
    if (e['data'] === undefined) return 'data is required'
    const ignorable = e['ignorable']
    if (ignorable !== undefined) {
      if (ignorable !== true) return 'ignorable must be true when present'
      if (info.surface) return `event "${type}": surface events cannot be ignorable`
    }
    this.noteType(info, type, ignorable)
    return undefined
  }

  /**
   * Members of a packed record, built by core's `decodeStorageRecord` from a row it validated: exact envelope keys,
   * contiguous safe-integer seqs and safe-integer times by construction. Only the first seq and each time's sign
   * remain to check.
   */
  private packedProblem(run: PackedRun): string | undefined {
    if (run.seq0 !== this.expected) return `seq ${run.seq0} is not contiguous; expected ${this.expected}`
    if (!run.timesNonNegative) return 'time must be a non-negative safe integer'
    this.noteType(this.info('assistant/chunk'), 'assistant/chunk', undefined)
    return undefined
  }

  /** As `packedProblem`, for packed members a backend handed over already built. */
  private packedMembersProblem(members: readonly SessionEvent[]): string | undefined {
    const first = members[0]!
    if (first.seq !== this.expected) return `seq ${first.seq} is not contiguous; expected ${this.expected}`
    for (let i = 0; i < members.length; i++) {
      if (members[i]!.time < 0) return 'time must be a non-negative safe integer'
    }
    this.noteType(this.info(first.type), first.type, undefined)
    return undefined
  }

  /** Accept `record` into the valid prefix, or say why it is the first defect. */
  accept(record: ScanRecord<unknown>): string | undefined {
    const { result } = record
    if (!result.ok) return result.reason
    if (!record.complete) return 'incomplete record (no terminating newline)'
    const { run } = result
    if (run !== undefined) {
      const problem = this.packedProblem(run)
      if (problem !== undefined) return problem
      this.log.pushRun(run)
      this.expected += run.length
      return undefined
    }
    const { events } = result
    if (events.length === 0) return 'record holds no events'
    if (result.packed === true) {
      const problem = this.packedMembersProblem(events)
      if (problem !== undefined) return problem
    } else {
      for (let i = 0; i < events.length; i++) {
        const problem = this.envelopeProblem(events[i], this.expected + i)
        if (problem !== undefined) return problem
      }
    }
    for (let i = 0; i < events.length; i++) this.log.push(events[i]!)
    this.expected += events.length
    return undefined
  }
}

/** §4.1 evidence: a complete record that parses as `{type: 'turn/end', seq: <safe integer>}` (never a packed one). */
function isEvidence(record: ScanRecord<unknown>): boolean {
  if (!record.complete) return false
  const { result } = record
  if (!result.ok) return result.turnEndEvidence
  return result.packed !== true && result.events.length === 1 && isTurnEndEvidence(result.events[0])
}

/** Events the records from `defect` on cover: decoded ones, plus store metadata for an undecodable last record. */
function droppedEventsFrom(records: readonly ScanRecord<unknown>[], defect: number): number {
  let dropped = 0
  for (let r = defect; r < records.length; r++) {
    const record = records[r]!
    // Store metadata counts only the last record, the one a crash can tear; a mid-log undecodable record counts 0.
    if (record.result.ok) dropped += record.result.events.length
    else if (r === records.length - 1) dropped += record.eventCount ?? 0
  }
  return dropped
}

/**
 * Run every §4.1 check on one scan and return the valid prefix.
 * @throws `SESSION_FORMAT_UNSUPPORTED` (version, unknown non-ignorable type), `SESSION_CORRUPT` (header, corruption,
 * lineage). A torn tail is reported, never thrown.
 */
export function readStored<M>(id: string, scan: PhysicalScan<M>, isKnownType: (type: string) => boolean): StoredState<M> {
  const header = checkStoredHeader(id, scan)
  const { records } = scan
  const walk = new Walk(scan.startSeq, isKnownType)
  let defect = -1
  let detail = ''

  for (let r = 0; r < records.length; r++) {
    const record = records[r]!
    if (defect < 0) {
      const problem = walk.accept(record)
      if (problem === undefined) continue
      defect = r
      detail = problem
    }
    if (isEvidence(record)) {
      const first = records[defect]!
      const seq = walk.expected
      const at = first.line === undefined ? `seq ${seq}` : `line ${first.line} (seq ${seq})`
      const later = record.line === undefined ? 'a later record' : `line ${record.line}`
      throw corrupt(id, `${detail} at ${at}, but ${later} is a turn/end`, scan, {
        ...(first.line === undefined ? {} : { line: first.line }),
        seq,
      })
    }
  }

  if (walk.unknownType !== undefined) throw unknownEventTypeError(id, walk.unknownType, SESSION_FORMAT_VERSION, scan.location)

  const { expected } = walk
  const events = eventsView(walk.log)
  if (header.isSeeded === true && header.seedLength !== undefined && header.seedLength >= scan.startSeq) {
    const problem = lineageMarkerAt(events, header.seedLength, scan.startSeq)
    if (problem !== undefined) throw corrupt(id, `seeded session ${problem}`, scan, { seq: header.seedLength })
  }

  const torn = defect < 0 ? null : {
    marker: records[defect]!.marker,
    report: Object.freeze({
      fromSeq: expected,
      droppedRecords: records.length - defect,
      droppedEvents: droppedEventsFrom(records, defect),
      detail,
    }),
  }
  return { header, events, startSeq: scan.startSeq, nextSeq: expected, torn, scan }
}
