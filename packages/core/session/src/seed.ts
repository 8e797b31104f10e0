/**
 * Session construction (spec 01 §5): the id, then the header, then each seed event (§5.2), then the seeded
 * contracts (§5.3), then the restore marker (§5.4). Three admission modes share the per-event pipeline.
 */

import { takeDecodedRun } from './codec.ts'
import { assertNever, printValue, SessionError, seedError } from './errors.ts'
import { assertSessionId, SESSION_FORMAT_VERSION, snapshotHeader } from './header.ts'
import { freezeParsed, isJsonValue, NOT_JSON, snapshotFrozen } from './json.ts'
import { EventLog, type EventSource } from './event-log.ts'
import { viewedLog } from './events-view.ts'
import { LogIndex } from './log-index.ts'
import type { PackedRun } from './packed-run.ts'
import { planSurface, SurfaceState } from './surface.ts'
import type {
  RestoreInit, SessionEvent, SessionHeader, SessionId, SessionInit, SessionMeta, SessionSeedEventState,
} from './types.ts'
import { payloadProblem } from './payload.ts'
import { isDeltaPosition } from './payload-fast-path.ts'
import { contentProblem, envelopeProblem } from './validate.ts'

/** How seed events are admitted: copied (`snapshot`), frozen in place (`detached`) or taken as is (`shared-frozen`). */
export type SeedMode = 'snapshot' | SessionSeedEventState

/**
 * @internal What a live fork takes from its parent at the cut `b` (see `Session.forkPrefix`): the parent's own frozen
 * events `0..b` in a fresh array the child takes over, their surface (`undefined`: replay their recorded ops) and
 * the landmark index of those events.
 */
export interface ForkPrefix {
  readonly events: EventLog
  readonly surface: SurfaceState | undefined
  readonly index: LogIndex
}

/** @internal The inputs of `Session.fromShared` (a live fork child). */
export interface SharedSessionInit {
  /** The child header; validated and frozen like any other. */
  readonly header: SessionHeader
  /** The parent's prefix, taken with no check. */
  readonly prefix: ForkPrefix
  /** The marker and closers; they get the full §5.2 checks. */
  readonly tail: readonly SessionEvent[]
  readonly inheritedEventCount: number
}

/** Everything a `Session` is made of. */
export interface BuiltSession {
  header: SessionHeader
  log: EventLog
  surface: SurfaceState
  index: LogIndex
  firstLiveSeq: number
  inheritedEventCount: number
}

/**
 * The time of the next event of `log` (01 §3.1 step 6): `max(Date.now(), time of the last event)`, so times never
 * decrease within a lifecycle. Shared by live append and the restore marker (§5.4).
 */
export function nextEventTime(log: EventSource): number {
  const now = Date.now()
  const last = log.at(log.length - 1)
  return last !== undefined && last.time > now ? last.time : now
}

function blank(header: SessionHeader, log = new EventLog(), surface = new SurfaceState(), index = new LogIndex()): BuiltSession {
  return { header, log, surface, index, firstLiveSeq: 0, inheritedEventCount: 0 }
}

/** The `SessionMeta` keys, in `SessionHeader` field order (§6.1 step 3). */
const META_KEYS = [
  'createdAt', 'cwd', 'parentSession', 'isSeeded', 'seedLength', 'origin', 'delegationDepth', 'agentPreset', 'importedFrom',
] as const
const META_KEY_SET: ReadonlySet<string> = new Set(META_KEYS)

/**
 * The header `create`/`prepare` synthesise from `meta` (§6.1 step 3): `{version, id, createdAt: meta.createdAt ?? now,
 * …present meta fields}` in `SessionHeader` key order; it is validated later, with the header.
 * @throws SessionError `INVALID_HEADER` for a `meta` that is not an object or has a key outside `SessionMeta`.
 */
export function headerFromMeta(id: SessionId, meta: SessionMeta | undefined): SessionHeader {
  const header: Record<string, unknown> = { version: SESSION_FORMAT_VERSION, id }
  if (meta !== undefined) {
    if (typeof meta !== 'object' || meta === null) throw new SessionError('INVALID_HEADER', 'session header must be a plain object')
    for (const key of Object.keys(meta)) {
      if (!META_KEY_SET.has(key)) throw new SessionError('INVALID_HEADER', `session header has unknown field "${key}"`)
    }
  }
  header['createdAt'] = meta?.createdAt ?? Date.now()
  for (const key of META_KEYS) {
    const value = meta?.[key]
    if (key !== 'createdAt' && value !== undefined) header[key] = value
  }
  return header as unknown as SessionHeader
}

/** `Session.create`: mode `snapshot`; the header is snapshotted or synthesised. */
export function buildCreated(id: SessionId, init: SessionInit | undefined): BuiltSession {
  assertSessionId(id)
  const header = init?.header === undefined
    ? Object.freeze({ version: SESSION_FORMAT_VERSION, id, createdAt: Date.now() }) as SessionHeader
    : snapshotHeader(init.header, id)
  const built = blank(header)
  const seed = init?.seed ?? []
  admitSeed(built, seed, 'snapshot', 0)
  finish(built, seed.length, init?.inheritedEventCount)
  return built
}

/** `Session.fromRestore`: mode `init.eventState`, then the `{}` marker unless the log already ends with one. */
export function buildRestored(id: SessionId, init: RestoreInit): BuiltSession {
  assertSessionId(id)
  const built = blank(snapshotHeader(init.header, id))
  const mode = init.eventState
  if (mode !== 'detached' && mode !== 'shared-frozen') {
    throw new SessionError('INVALID_SEED', `eventState must be "detached" or "shared-frozen", got ${printValue(mode)}`)
  }
  const viewed = viewedLog(init.seed)
  if (viewed !== undefined && viewed.log.base === 0) {
    // A view of a whole log nobody appends to is adopted as the session's own log: admission then commits in place.
    const inPlace = viewed.length === viewed.log.length && viewed.log.adopt()
    if (inPlace) built.log = viewed.log
    admitLog(built, viewed.log, viewed.length, mode, inPlace)
  } else {
    admitSeed(built, init.seed, mode, 0)
  }
  finish(built, init.seed.length, init.inheritedEventCount)
  const log = built.log
  if (log.at(log.length - 1)?.type !== 'session/end-seed') {
    const marker = Object.freeze({ type: 'session/end-seed', seq: log.length, time: nextEventTime(log), data: Object.freeze({}) })
    log.push(marker)
    built.index.add(marker)
  }
  return built
}

/**
 * `Session.fromShared`: the prefix is taken over as is (no check, no copy), its surface given or replayed from the
 * recorded ops (01 §7: after a replace the prefix must be folded); only the tail is admitted (mode `snapshot`).
 */
export function buildShared(id: SessionId, init: SharedSessionInit): BuiltSession {
  assertSessionId(id)
  const header = snapshotHeader(init.header, id)
  const { events: log, index } = init.prefix
  let surface = init.prefix.surface
  if (surface === undefined) {
    surface = new SurfaceState()
    // A packed member is a chunk, never a surface node: only the other slots are read.
    for (let i = 0; i < log.length; i++) if (log.runAt(i) === undefined) surface.applyRecorded(log.at(i)!)
  }
  const built = blank(header, log, surface, index)
  admitSeed(built, init.tail, 'snapshot', log.length)
  finish(built, log.length, init.inheritedEventCount)
  return built
}

/**
 * Admit the first `length` events of a log handed over as an events view (a restored log whose packed chunk runs are
 * still packed): each unread member stretch of a run is admitted in one step when `admitPackedRun` can, and stays
 * packed; every other entry, and a stretch that cannot, goes through §5.2 one entry at a time, exactly as an array
 * of the same events would.
 */
function admitLog(built: BuiltSession, source: EventLog, length: number, mode: SeedMode, inPlace: boolean): void {
  const checked = source.envelopesChecked
  for (let i = 0; i < length;) {
    const run = source.runAt(i)
    if (run !== undefined) {
      const from = i - (run.seq0 - source.base)
      // A run sits only at its members' own positions, so when its last slot here is still packed the stretch is
      // whole (a member read meanwhile is the run's cached object); otherwise it ends at the first read member.
      let end = Math.min(length, i + run.length - from)
      if (source.runAt(end - 1) !== run) for (end = i + 1; end < length && source.runAt(end) === run;) end++
      if (admitPackedRun(built, run, from, end - i, i, inPlace)) {
        i = end
        continue
      }
    }
    admitOne(built, source.at(i), mode, i, inPlace, checked)
    i++
  }
}

/**
 * Admit members `from … from + count − 1` of `run` at seed index `index` without building them, when §5.2 would accept
 * each: the row was validated as a row (exact keys, contiguous safe-integer seqs and times, one kind, string
 * fragments, `id` and `name`, numeric `turn`, `step`, `index`), so it remains to check the first seq, the times' sign
 * and the shared numbers — lossless (no `-0`), positive safe-integer `turn` and `step`, non-negative safe-integer
 * `index` —, which make every member's payload a valid streaming delta; a chunk carries no surface field, so the
 * surface step plans nothing. Returns false, admitting nothing, otherwise (§5.2 per member then reports the defect).
 */
function admitPackedRun(built: BuiltSession, run: PackedRun, from: number, count: number, index: number, inPlace: boolean): boolean {
  const { turn, step, index: chunkIndex } = run.shared
  if (run.seq0 + from !== index || !run.timesNonNegative) return false
  // Positive `turn` and `step` are lossless already; a non-negative `index` may still be -0.
  if (!isDeltaPosition(turn, step, chunkIndex) || !isLosslessNumber(chunkIndex)) return false
  if (!inPlace) built.log.pushRun(run, from, count)
  // Members share type and (absent) `ignorable`, and a chunk is no landmark: the first one tells the index everything.
  built.index.note('assistant/chunk', index, false)
  return true
}

/**
 * §5.2 for one entry at seed index `index`: admit, check content and surface, then commit (`inPlace`: the entry is
 * already in `built.log`, the very object a `detached` or `shared-frozen` admission returns; `checked`: it comes from
 * a log whose envelopes, type names and seqs were checked, so only the lossless and payload steps remain of those).
 */
function admitOne(built: BuiltSession, value: unknown, mode: SeedMode, index: number, inPlace = false, checked = false): void {
  const event = checked ? admitChecked(value, mode, index) : admitEvent(value, mode, index)
  let plan
  try {
    const content = checked ? payloadProblem(event.type, event.data) : contentProblem(event)
    if (content !== undefined) throw new SessionError('INVALID_EVENT', content)
    plan = planSurface(built.surface, built.log, event)
  } catch (error) {
    throw error instanceof SessionError ? seedError(error.code, error.message, index) : error
  }
  if (!inPlace) built.log.push(event)
  if (plan !== null) built.surface.apply(plan)
  built.index.add(event)
}

/** Admit `seed` entry by entry (§5.2), numbering entries from `offset`; each is committed before the next. */
function admitSeed(built: BuiltSession, seed: readonly unknown[], mode: SeedMode, offset: number): void {
  if (!Array.isArray(seed)) throw new SessionError('INVALID_SEED', 'seed must be an array')
  for (let i = 0; i < seed.length; i++) {
    const index = offset + i
    if (mode !== 'snapshot') {
      const run = takeDecodedRun(seed[i])
      if (run !== undefined && admitDecodedRun(built, seed, i, index, run)) {
        i += run.length - 1
        continue
      }
    }
    admitOne(built, seed[i], mode, index)
  }
}

const isLosslessNumber = (n: number): boolean => n - n === 0 && (n !== 0 || 1 / n > 0)

/**
 * Admit the members of one decoded chunk row (`takeDecodedRun`) at `seed[i…]` in one step, when that is exactly what
 * §5.2 would do member by member; otherwise admit nothing and return false (the caller then runs §5.2 per entry, which
 * reports the exact failure). Core built the members frozen, with exact envelope keys, contiguous non-negative
 * safe-integer seqs, safe-integer times and one shared kind, `turn`, `step` and `index`; so per row it remains to check
 * that the caller handed these very objects, the first seq, each time's sign, the shared numbers (lossless: no `-0`)
 * and the first member's content and surface plan, which hold for every member (only the fragment string differs).
 */
function admitDecodedRun(built: BuiltSession, seed: readonly unknown[], i: number, index: number, run: readonly SessionEvent[]): boolean {
  const n = run.length
  if (i + n > seed.length) return false
  for (let k = 0; k < n; k++) {
    if (seed[i + k] !== run[k]) return false
    const time = run[k]!.time
    if (!(time > 0 || (time === 0 && 1 / time > 0))) return false
  }
  const first = run[0] as SessionEvent<'assistant/chunk'>
  const { turn, step, chunk } = first.data
  if (first.seq !== index || !isLosslessNumber(turn) || !isLosslessNumber(step) || !isLosslessNumber((chunk as { readonly index: number }).index)) return false
  if (contentProblem(first) !== undefined) return false
  try {
    if (planSurface(built.surface, built.log, first) !== null) return false
  } catch {
    return false
  }
  const { log } = built
  for (let k = 0; k < n; k++) log.push(run[k]!)
  // Members share type and (absent) `ignorable`, and a chunk is no landmark: the first one tells the index everything.
  built.index.add(first)
  return true
}

/** §5.2 steps 1–3 for one entry: lossless (per mode), envelope, contiguity. */
function admitEvent(value: unknown, mode: SeedMode, index: number): SessionEvent {
  let event = value
  switch (mode) {
    case 'snapshot': {
      event = snapshotFrozen(value, 1)
      if (event === NOT_JSON) throw seedError('NOT_JSON', 'is not lossless JSON', index)
      break
    }
    case 'shared-frozen':
      if (!isFrozenEvent(value)) throw seedError('INVALID_SEED', 'is not frozen (eventState shared-frozen)', index)
      if (!isJsonValue(value)) throw seedError('NOT_JSON', 'is not lossless JSON', index)
      break
    case 'detached':
      // The number and depth check fused with the in-place freeze: the caller gave up every alias (§5.1).
      if (!freezeParsed(value, 1)) throw seedError('NOT_JSON', 'is not lossless JSON', index)
      break
    default:
      assertNever(mode)
  }
  const envelope = envelopeProblem(event)
  if (envelope !== undefined) throw seedError('INVALID_EVENT', `invalid envelope: ${envelope}`, index)
  const seq = (event as SessionEvent).seq
  if (seq !== index) throw seedError('INVALID_SEED', `has seq ${seq}; seed must be contiguous from 0`, index)
  return event as SessionEvent
}

/** §5.2 step 1 for an entry whose envelope and seq were checked (`EventLog.envelopesChecked`); `admitEvent` on failure. */
function admitChecked(value: unknown, mode: SeedMode, index: number): SessionEvent {
  const lossless = mode === 'detached' ? freezeParsed(value, 1) : mode === 'shared-frozen' && isFrozenEvent(value) && isJsonValue(value)
  // A failing entry goes through the full step, which reports it exactly as an unchecked one.
  return lossless ? value as SessionEvent : admitEvent(value, mode, index)
}

/** Frozen, and so is its `data` when that is an object. */
function isFrozenEvent(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return true // not an object: the lossless or envelope step reports it
  if (!Object.isFrozen(value)) return false
  const data = (value as { data?: unknown }).data
  return typeof data !== 'object' || data === null || Object.isFrozen(data)
}

function seedContract(message: string): SessionError {
  return new SessionError('INVALID_SEED', message)
}

/** §5.3 over the first `seedLength` entries, then the boundaries of §5.5. */
function finish(built: BuiltSession, seedLength: number, count: number | undefined): void {
  const { header, log } = built
  const seeded = header.isSeeded === true
  if (seeded && seedLength === 0) throw seedContract('seeded session requires an explicit constructor seed')
  if (seeded && count === undefined) throw seedContract('seeded session requires an inherited event count')
  if (count !== undefined && !(Number.isSafeInteger(count) && count >= 0)) {
    throw seedContract(`inherited event count must be a non-negative safe integer, got ${printValue(count)}`)
  }
  const n = count ?? 0
  if (!seeded && n !== 0) throw seedContract(`non-seeded session must have inherited event count 0, got ${n}`)
  if (seeded && n !== header.seedLength) {
    throw seedContract(`inherited event count ${n} does not match header seedLength ${String(header.seedLength)}`)
  }
  if (seeded && !(n < seedLength && isInheritedMarker(log.at(n)!))) {
    throw seedContract(`seeded session must mark its cut with session/end-seed {inherited: true} at index ${n}`)
  }
  // Only end-seed events can be markers: the index lists them, so the seed is not walked again.
  for (const j of built.index.endSeedsIn(seeded ? n + 1 : 0, seedLength)) {
    if (isInheritedMarker(log.at(j)!)) throw seedContract(`unexpected inherited end-seed marker at index ${j}`)
  }
  built.firstLiveSeq = seedLength
  built.inheritedEventCount = n
}

function isInheritedMarker(event: SessionEvent): boolean {
  return event.type === 'session/end-seed' && event.data.inherited === true
}
