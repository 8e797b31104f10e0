/**
 * Fork (spec 01 §7, decision D4): the seed of a child session cut from a parent log at a boundary, and the live
 * fork that shares the parent's frozen prefix instead of copying it.
 */

import { randomUUID } from 'node:crypto'
import { openTurnClosers } from './closers.ts'
import { SessionError, SessionForkError } from './errors.ts'
import { isValidSessionId, SESSION_FORMAT_VERSION } from './header.ts'
import { Session } from './session.ts'
import type SessionStore from './store.ts'
import type { SessionEvent, SessionHeader, SessionId, SessionMeta, SessionSurface } from './types.ts'

/** What `forkSeed` returns: `create(childId, result)` builds the child. */
export interface ForkSeed {
  seed: SessionEvent[]
  inheritedEventCount: number
  meta: SessionMeta
}

/** The validated cut: the boundary, the marker and the closers that follow it (not the prefix itself). */
interface ForkCut {
  readonly boundary: number
  readonly tail: SessionEvent[]
  readonly meta: SessionMeta
}

/**
 * Cut `events` of the session described by `parent` after seq `boundary` (default: the last event) and return the
 * child's seed: the parent's own prefix objects, then `session/end-seed {inherited: true}`, then the forked closers
 * of a turn left open at the cut (01 §8). The child meta links to the parent and copies its cwd, origin, delegation
 * depth and agent preset. Pure: `events` is not changed.
 * @throws SessionForkError `INVALID_BOUNDARY` with the §7 message naming the parent id.
 */
export function forkSeed(parent: SessionHeader, events: readonly SessionEvent[], boundary?: number): ForkSeed {
  const cut = planCut(parent, events, boundary)
  const seed = events.slice(0, cut.boundary + 1)
  for (const event of cut.tail) seed.push(event)
  return { seed, inheritedEventCount: cut.boundary + 1, meta: cut.meta }
}

/**
 * Fork the live `source` of `store` (01 §7): validate in the §7 order, then build the child around the parent's
 * shared frozen prefix (no copy, no JSON walk) and enter and announce it on the caller's fiber through the store.
 * The parent is untouched; when anything fails, no child remains. Called by `SessionStore.fork`.
 * @throws SessionError `INVALID_SESSION_ID`; SessionForkError `SESSION_ALREADY_EXISTS`, `SESSION_NOT_FOUND`,
 * `SESSION_NOT_LIVE`, `INVALID_BOUNDARY`; and whatever construction or a `session/created` listener throws.
 */
export function forkLive(store: SessionStore, source: Session | SessionId, boundary: number | undefined,
  childId: SessionId | undefined): Session {
  if (childId !== undefined && !isValidSessionId(childId)) {
    throw new SessionError('INVALID_SESSION_ID', `invalid session id "${String(childId)}"`)
  }
  if (childId !== undefined && store.get(childId) !== undefined) {
    throw new SessionForkError('SESSION_ALREADY_EXISTS', `session "${childId}" already exists`)
  }
  const parent = resolveSource(store, source)
  const events = parent.events
  const cut = planCut(parent.header, events, boundary)
  const id = childId ?? mintId(store)
  const header = childHeader(id, cut.meta)
  const prefixSurface = sharedPrefixSurface(parent.surface, cut.boundary)
  const child = Session.fromShared(id, {
    header,
    prefix: parent.sharedPrefix(cut.boundary + 1),
    tail: cut.tail,
    inheritedEventCount: cut.boundary + 1,
    ...(prefixSurface ? { prefixSurface } : {}),
  })
  return store.adopt(child)
}

/** The live parent object for a fork source, by id or by object. */
function resolveSource(store: SessionStore, source: Session | SessionId): Session {
  const id = typeof source === 'string' ? source : source?.id
  const live = typeof id === 'string' ? store.get(id) : undefined
  if (live === undefined) throw new SessionForkError('SESSION_NOT_FOUND', `session "${String(id ?? source)}" not found`)
  if (typeof source !== 'string' && live !== source) {
    throw new SessionForkError('SESSION_NOT_LIVE', `session "${id}" is not the live store instance`)
  }
  return live
}

/** Validate the boundary (01 §7 step 3) and build the marker, the closers and the child meta. */
function planCut(parent: SessionHeader, events: readonly SessionEvent[], boundary: number | undefined): ForkCut {
  const length = events.length
  let b = length - 1
  if (boundary !== undefined) {
    if (typeof boundary !== 'number' || !Number.isSafeInteger(boundary) || boundary < 0) {
      throw new SessionForkError('INVALID_BOUNDARY', `fork boundary must be a non-negative safe integer, got ${String(boundary)}`)
    }
    if (length === 0) throw new SessionForkError('INVALID_BOUNDARY', `session "${parent.id}" has no events`)
    if (boundary >= length) {
      throw new SessionForkError('INVALID_BOUNDARY',
        `fork boundary ${boundary} is beyond the last seq ${length - 1} of session "${parent.id}"`)
    }
    b = boundary
  }
  const last = b >= 0 ? events[b] : undefined
  // A stored source may hold anything at `b`; only a live one is known to be contiguous.
  if (b >= 0 && (last as { seq?: unknown } | null | undefined)?.seq !== b) {
    throw new SessionForkError('INVALID_BOUNDARY', `fork boundary ${b} does not match a contiguous seq in session "${parent.id}"`)
  }
  const marker = Object.freeze({
    type: 'session/end-seed',
    seq: b + 1,
    time: last === undefined ? Date.now() : last.time,
    data: Object.freeze({ inherited: true }),
  }) as SessionEvent
  const tail: SessionEvent[] = [marker]
  for (const closer of openTurnClosers(lastTurnWindow(events, b, marker), { kind: 'forked' })) tail.push(closer)
  return { boundary: b, tail, meta: childMeta(parent, b + 1) }
}

/**
 * The events from the last turn boundary at or before `b` through `b`, plus the marker. `openTurnClosers` resets
 * all of its state at `turn/start` and `turn/end`, so scanning this window gives the closers of the whole prefix
 * without walking it (BENCHMARKS.md: fork scans back only to the last turn boundary).
 */
function lastTurnWindow(events: readonly SessionEvent[], b: number, marker: SessionEvent): SessionEvent[] {
  let from = b
  while (from > 0) {
    const type = (events[from] as { type?: unknown } | null | undefined)?.type
    if (type === 'turn/start' || type === 'turn/end') break
    from--
  }
  const window = events.slice(Math.max(from, 0), b + 1)
  window.push(marker)
  return window
}

/** The child meta in `SessionHeader` field order (01 §7): linked, seeded, with the parent's placement copied. */
function childMeta(parent: SessionHeader, seedLength: number): SessionMeta {
  const meta: { -readonly [K in keyof SessionMeta]: SessionMeta[K] } = {}
  if (parent.cwd !== undefined) meta.cwd = parent.cwd
  meta.parentSession = parent.id
  meta.isSeeded = true
  meta.seedLength = seedLength
  if (parent.origin !== undefined) meta.origin = parent.origin
  if (parent.delegationDepth !== undefined) meta.delegationDepth = parent.delegationDepth
  if (parent.agentPreset !== undefined) meta.agentPreset = parent.agentPreset
  return meta
}

/** The child header as `create` would synthesise it from `meta` (01 §6.1 step 3). */
function childHeader(id: SessionId, meta: SessionMeta): SessionHeader {
  return { version: SESSION_FORMAT_VERSION, id, createdAt: Date.now(), ...meta } as SessionHeader
}

/** A fresh UUID that is not live in `store` (01 §6.1 step 1). */
function mintId(store: SessionStore): SessionId {
  let id: SessionId
  do id = randomUUID() as SessionId
  while (store.get(id) !== undefined)
  return id
}

/**
 * The surface after the prefix `0..b` when it can be read off the parent's: with no replace so far, the parent's
 * nodes are its append-origin surface events in ascending seq order, so the child's nodes are the ones `<= b`
 * (found by binary search). After a replace the prefix must be folded, which `fromShared` does when given nothing.
 */
function sharedPrefixSurface(surface: SessionSurface, b: number): SessionSurface | undefined {
  if (surface.replaceGeneration !== 0) return undefined
  const nodes = surface.nodes
  let lo = 0
  let hi = nodes.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (nodes[mid]! <= b) lo = mid + 1
    else hi = mid
  }
  return { nodes: nodes.slice(0, lo), replaceGeneration: 0 }
}
