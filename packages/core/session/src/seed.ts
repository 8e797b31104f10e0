/**
 * Session construction (spec 01 §5): the id, then the header, then each seed event (§5.2), then the seeded
 * contracts (§5.3), then the restore marker (§5.4). Three admission modes share the per-event pipeline.
 */

import { assertNever, printValue, SessionError, seedError } from './errors.ts'
import { assertSessionId, SESSION_FORMAT_VERSION, snapshotHeader } from './header.ts'
import { freezeParsed, isJsonValue, snapshotFrozen } from './json.ts'
import { planSurface, SurfaceState } from './surface.ts'
import type {
  RequestContext, RequestHeader, RestoreInit, SessionEvent, SessionHeader, SessionId, SessionInit, SessionMeta,
  SessionSeedEventState, SessionSurface,
} from './types.ts'
import { contentProblem, envelopeProblem } from './validate.ts'

/** How seed events are admitted: copied (`snapshot`), frozen in place (`detached`) or taken as is (`shared-frozen`). */
export type SeedMode = 'snapshot' | SessionSeedEventState

/** @internal The inputs of `Session.fromShared` (a live fork child). */
export interface SharedSessionInit {
  /** The child header; validated and frozen like any other. */
  readonly header: SessionHeader
  /** The parent's own frozen events `0..b`, taken with no check. */
  readonly prefix: readonly SessionEvent[]
  /** The marker and closers; they get the full §5.2 checks. */
  readonly tail: readonly SessionEvent[]
  readonly inheritedEventCount: number
  /** The surface after the prefix, when the caller knows it; otherwise the prefix's recorded ops are replayed. */
  readonly prefixSurface?: SessionSurface
}

/** Everything a `Session` is made of. */
export interface BuiltSession {
  header: SessionHeader
  log: SessionEvent[]
  surface: SurfaceState
  firstLiveSeq: number
  inheritedEventCount: number
  requestHeader: RequestHeader | undefined
  requestContext: RequestContext | undefined
}

/**
 * The time of the next event of `log` (01 §3.1 step 6): `max(Date.now(), time of the last event)`, so times never
 * decrease within a lifecycle. Shared by live append and the restore marker (§5.4).
 */
export function nextEventTime(log: readonly SessionEvent[]): number {
  const now = Date.now()
  const last = log[log.length - 1]
  return last !== undefined && last.time > now ? last.time : now
}

function blank(header: SessionHeader, log: SessionEvent[] = [], surface = new SurfaceState()): BuiltSession {
  return { header, log, surface, firstLiveSeq: 0, inheritedEventCount: 0, requestHeader: undefined, requestContext: undefined }
}

/** The `SessionMeta` keys, in `SessionHeader` field order (§6.1 step 3). */
const META_KEYS = ['createdAt', 'cwd', 'parentSession', 'isSeeded', 'seedLength', 'origin', 'delegationDepth', 'agentPreset'] as const
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
  admitSeed(built, init.seed, mode, 0)
  finish(built, init.seed.length, init.inheritedEventCount)
  const log = built.log
  if (log[log.length - 1]?.type !== 'session/end-seed') {
    log.push(Object.freeze({ type: 'session/end-seed', seq: log.length, time: nextEventTime(log), data: Object.freeze({}) }))
  }
  return built
}

/** `Session.fromShared`: the prefix is shared as is, its surface given or replayed; the tail is snapshotted. */
export function buildShared(id: SessionId, init: SharedSessionInit): BuiltSession {
  assertSessionId(id)
  const header = snapshotHeader(init.header, id)
  const log = Array.from(init.prefix)
  let surface: SurfaceState
  if (init.prefixSurface !== undefined) {
    surface = new SurfaceState(Array.from(init.prefixSurface.nodes), init.prefixSurface.replaceGeneration)
  } else {
    surface = new SurfaceState()
    for (const event of log) surface.applyRecorded(event)
  }
  const built = blank(header, log, surface)
  for (let i = log.length - 1; i >= 0 && (built.requestHeader === undefined || built.requestContext === undefined); i--) {
    const event = log[i]!
    if (event.type === 'request/header') built.requestHeader ??= event.data.header
    else if (event.type === 'request/context') built.requestContext ??= event.data
  }
  admitSeed(built, init.tail, 'snapshot', log.length)
  finish(built, log.length, init.inheritedEventCount)
  return built
}

/** Admit `seed` entry by entry (§5.2), numbering entries from `offset`; each is committed before the next. */
function admitSeed(built: BuiltSession, seed: readonly unknown[], mode: SeedMode, offset: number): void {
  if (!Array.isArray(seed)) throw new SessionError('INVALID_SEED', 'seed must be an array')
  for (let i = 0; i < seed.length; i++) {
    const index = offset + i
    const event = admitEvent(seed[i], mode, index)
    let plan
    try {
      const content = contentProblem(event)
      if (content !== undefined) throw new SessionError('INVALID_EVENT', content)
      plan = planSurface(built.surface, built.log, event)
    } catch (error) {
      throw error instanceof SessionError ? seedError(error.code, error.message, index) : error
    }
    built.log.push(event)
    if (plan !== null) built.surface.apply(plan)
    if (event.type === 'request/header') built.requestHeader = event.data.header
    else if (event.type === 'request/context') built.requestContext = event.data
  }
}

/** §5.2 steps 1–3 for one entry: lossless (per mode), envelope, contiguity. */
function admitEvent(value: unknown, mode: SeedMode, index: number): SessionEvent {
  let event = value
  switch (mode) {
    case 'snapshot': {
      const snapshot = snapshotFrozen(value, 1)
      if (snapshot === undefined) throw seedError('NOT_JSON', 'is not lossless JSON', index)
      event = snapshot.value
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
  if (seeded && !(n < seedLength && isInheritedMarker(log[n]!))) {
    throw seedContract(`seeded session must mark its cut with session/end-seed {inherited: true} at index ${n}`)
  }
  for (let j = seeded ? n + 1 : 0; j < seedLength; j++) {
    if (isInheritedMarker(log[j]!)) throw seedContract(`unexpected inherited end-seed marker at index ${j}`)
  }
  built.firstLiveSeq = seedLength
  built.inheritedEventCount = n
}

function isInheritedMarker(event: SessionEvent): boolean {
  return event.type === 'session/end-seed' && event.data.inherited === true
}
