/**
 * Fork (spec 01 §7, decision D4): the seed of a child session cut from a parent log at a boundary, and the live
 * fork that shares the parent's frozen prefix instead of copying it.
 */

import { openTurnClosers } from './closers.ts'
import { printValue, SessionForkError } from './errors.ts'
import { eventsView } from './events-view.ts'
import { assertSessionId } from './header.ts'
import { headerFromMeta } from './seed.ts'
import { Session } from './session.ts'
import type SessionStore from './session-store.ts'
import type { SessionEvent, SessionHeader, SessionId, SessionMeta } from './types.ts'

/** What `forkSeed` returns: `create(childId, result)` builds the child. */
export interface ForkSeed {
  seed: SessionEvent[]
  inheritedEventCount: number
  meta: SessionMeta
}

/**
 * Cut `events` of the session described by `parent` after seq `boundary` (default: the last event) and return the
 * child's seed: the parent's own prefix objects, then `session/end-seed {inherited: true}`, then the forked closers
 * of a turn left open at the cut (01 §8). The child meta links to the parent and copies its cwd, origin, delegation
 * depth and agent preset. Pure: `events` is not changed.
 * @throws SessionForkError `INVALID_BOUNDARY` with the §7 message naming the parent id.
 */
export function forkSeed(parent: SessionHeader, events: readonly SessionEvent[], boundary?: number): ForkSeed {
  const b = checkBoundary(parent.id, events, boundary)
  const seed = events.slice(0, b + 1)
  for (const event of cutTail(events, b, lastTurnBoundary(events, b))) seed.push(event)
  return { seed, inheritedEventCount: b + 1, meta: childMeta(parent, b + 1) }
}

/**
 * Fork the live `source` of `store` (01 §7): validate in the §7 order, then build the child around the parent's
 * shared frozen prefix (one slice of its log; no copy of an event, no JSON walk, no scan of the prefix) and enter and
 * announce it on the caller's fiber through the store. The parent is untouched; when anything fails, no child
 * remains. Called by `SessionStore.fork`.
 * @throws SessionError `INVALID_SESSION_ID`; SessionForkError `SESSION_ALREADY_EXISTS`, `SESSION_NOT_FOUND`,
 * `SESSION_NOT_LIVE`, `INVALID_BOUNDARY`; and whatever construction or a `session/created` listener throws.
 */
export function forkLive(store: SessionStore, source: Session | SessionId, boundary: number | undefined,
  childId: SessionId | undefined): Session {
  if (childId !== undefined) {
    assertSessionId(childId)
    if (store.get(childId) !== undefined) {
      throw new SessionForkError('SESSION_ALREADY_EXISTS', `session "${childId}" already exists`)
    }
  }
  const parent = resolveSource(store, source)
  const b = checkBoundary(parent.id, parent.events, boundary)
  const prefix = parent.forkPrefix(b)
  const tail = cutTail(eventsView(prefix.events), b, prefix.index.lastTurnBoundary(b))
  const id = childId ?? store.hub.live.mintId()
  const header = headerFromMeta(id, childMeta(parent.header, b + 1))
  return store.adopt(Session.fromShared(id, { header, prefix, tail, inheritedEventCount: b + 1 }))
}

/** The live parent object for a fork source, by id or by object (01 §7 step 2). */
function resolveSource(store: SessionStore, source: Session | SessionId): Session {
  const id: unknown = typeof source === 'string' ? source
    : typeof source === 'object' && source !== null ? (source as { readonly id?: unknown }).id : undefined
  const live = typeof id === 'string' ? store.get(id as SessionId) : undefined
  if (live === undefined) throw new SessionForkError('SESSION_NOT_FOUND', `session "${printValue(id ?? source)}" not found`)
  if (live !== source && typeof source !== 'string') {
    throw new SessionForkError('SESSION_NOT_LIVE', `session "${live.id}" is not the live store instance`)
  }
  return live
}

/**
 * The cut `b` (01 §7 step 3): `boundary`, or the last seq when it is omitted (-1 for an empty source).
 * @throws SessionForkError `INVALID_BOUNDARY` with the §7 message.
 */
function checkBoundary(id: string, events: readonly SessionEvent[], boundary: number | undefined): number {
  const length = events.length
  if (boundary === undefined) return length - 1
  if (typeof boundary !== 'number' || !Number.isSafeInteger(boundary) || boundary < 0) {
    throw new SessionForkError('INVALID_BOUNDARY', `fork boundary must be a non-negative safe integer, got ${printValue(boundary)}`)
  }
  if (length === 0) throw new SessionForkError('INVALID_BOUNDARY', `session "${id}" has no events`)
  if (boundary >= length) {
    throw new SessionForkError('INVALID_BOUNDARY', `fork boundary ${boundary} is beyond the last seq ${length - 1} of session "${id}"`)
  }
  // A stored source may hold anything at `b`; a live one is always contiguous.
  if ((events[boundary] as { readonly seq?: unknown } | null | undefined)?.seq !== boundary) {
    throw new SessionForkError('INVALID_BOUNDARY', `fork boundary ${boundary} does not match a contiguous seq in session "${id}"`)
  }
  return boundary
}

/** The index of the last `turn/start` or `turn/end` at or before `b` in a plain log, or -1 (a backwards scan). */
function lastTurnBoundary(events: readonly SessionEvent[], b: number): number {
  for (let i = b; i >= 0; i--) {
    const type = (events[i] as { readonly type?: unknown } | null | undefined)?.type
    if (type === 'turn/start' || type === 'turn/end') return i
  }
  return -1
}

/**
 * The frozen marker at `b + 1` and the forked closers after it. `openTurnClosers` resets all of its state at
 * `turn/start` and `turn/end`, so scanning from the last such boundary `from` (none: no turn is open) gives the
 * closers of the whole prefix without walking it (docs/benchmarks.md).
 */
function cutTail(events: readonly SessionEvent[], b: number, from: number): SessionEvent[] {
  const last = b >= 0 ? events[b] : undefined
  const marker = Object.freeze({
    type: 'session/end-seed',
    seq: b + 1,
    time: last === undefined ? Date.now() : last.time,
    data: Object.freeze({ inherited: true }),
  }) as SessionEvent
  const window = from < 0 ? [] : events.slice(from, b + 1)
  window.push(marker)
  return [marker, ...openTurnClosers(window, { kind: 'forked' })]
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
