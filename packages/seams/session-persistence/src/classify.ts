/**
 * The read-path checks of spec 02 §4.1, in their order: header defect (checksum) → header version → header shape, id
 * and identity → classification (clean / torn tail / corruption) → unknown non-ignorable types → lineage. One walk
 * over the records checks envelopes and contiguity and collects the valid events; nothing here writes.
 */
import {
  assertSessionEvent,
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
  if (scan.headerDefect !== undefined) throw corrupt(id, scan.headerDefect, scan)
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
    // Every event this walk pushes passed `envelopeProblem` or came from a validated row (see `accept`).
    this.log = new EventLog([], startSeq, true)
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

/** Events the torn last record covers: decoded ones, else what store metadata says (`eventCount`), else 0. */
function tornEvents(record: ScanRecord<unknown>): number {
  return record.result.ok ? record.result.events.length : record.eventCount ?? 0
}

/** The first record of a walk that is not valid: its index, why, and the seq the valid prefix ends at. */
export interface FirstDefect<M> {
  readonly index: number
  readonly record: ScanRecord<M>
  readonly detail: string
  /** The seq the defect would have started at (= the valid prefix's end). */
  readonly seq: number
}

/** What one §4.1 walk over a scan found, before any verdict: the valid prefix and the first defect. */
export interface WalkedRecords<M> {
  readonly events: readonly SessionEvent[]
  /** The seq after the valid prefix. */
  readonly nextSeq: number
  readonly defect: FirstDefect<M> | null
  /** The first unknown non-ignorable type among valid events. */
  readonly unknownType: string | undefined
}

/** Walk `scan`'s records once (envelopes, contiguity, types) up to the first defect; never throws, never writes. */
export function walkRecords<M>(scan: PhysicalScan<M>, isKnownType: (type: string) => boolean): WalkedRecords<M> {
  const { records } = scan
  const walk = new Walk(scan.startSeq, isKnownType)
  for (let r = 0; r < records.length; r++) {
    const record = records[r]!
    const problem = walk.accept(record)
    if (problem !== undefined) {
      const defect = { index: r, record, detail: problem, seq: walk.expected }
      return { events: eventsView(walk.log), nextSeq: walk.expected, defect, unknownType: walk.unknownType }
    }
  }
  return { events: eventsView(walk.log), nextSeq: walk.expected, defect: null, unknownType: walk.unknownType }
}

/** Where a defect is: `line L (seq S)` for stores with lines, else `seq S`. */
export function defectPlace(defect: FirstDefect<unknown>): string {
  return defect.record.line === undefined ? `seq ${defect.seq}` : `line ${defect.record.line} (seq ${defect.seq})`
}

/**
 * Run every §4.1 check on one scan and return the valid prefix. Only an incomplete last record (a JSONL fragment
 * without its newline) is a torn tail; any complete record that fails its checksum or its shape is corruption,
 * wherever it is.
 * @throws `SESSION_FORMAT_UNSUPPORTED` (version, unknown non-ignorable type), `SESSION_CORRUPT` (header, corruption,
 * lineage). A torn tail is reported, never thrown.
 */
export function readStored<M>(id: string, scan: PhysicalScan<M>, isKnownType: (type: string) => boolean): StoredState<M> {
  const header = checkStoredHeader(id, scan)
  const walked = walkRecords(scan, isKnownType)
  const { defect } = walked
  const torn = defect !== null && !defect.record.complete && defect.index === scan.records.length - 1
  if (defect !== null && !torn) {
    const { line } = defect.record
    throw corrupt(id, `${defect.detail} at ${defectPlace(defect)}`, scan, { ...(line === undefined ? {} : { line }), seq: defect.seq })
  }
  if (walked.unknownType !== undefined) throw unknownEventTypeError(id, walked.unknownType, SESSION_FORMAT_VERSION, scan.location)

  const { events, nextSeq } = walked
  if (header.isSeeded === true && header.seedLength !== undefined && header.seedLength >= scan.startSeq) {
    const problem = lineageMarkerAt(events, header.seedLength, scan.startSeq)
    if (problem !== undefined) throw corrupt(id, `seeded session ${problem}`, scan, { seq: header.seedLength })
  }

  const tail = defect === null ? null : {
    marker: defect.record.marker,
    report: Object.freeze({ fromSeq: nextSeq, droppedRecords: 1, droppedEvents: tornEvents(defect.record), detail: defect.detail }),
  }
  return { header, events, startSeq: scan.startSeq, nextSeq, torn: tail, scan }
}

/**
 * Every event of `state` passes core's validator (content and V1–V10, 01 §1.8), as a restore checks it; `migrate`
 * runs this so a new checksum never vouches for an event a resume would refuse.
 * @throws SessionPersistenceCorruptionError `SESSION_CORRUPT` naming the first invalid event's seq.
 */
export function assertStoredEvents(id: string, state: StoredState<unknown>): void {
  for (const event of state.events) {
    try {
      assertSessionEvent(event)
    } catch (error) {
      throw corrupt(id, `event at seq ${event.seq}: ${error instanceof Error ? error.message : String(error)}`, state.scan, { seq: event.seq, cause: error })
    }
  }
}
