/**
 * The landmarks of one session log, kept as it grows (one type comparison per committed event) so that reads which
 * would otherwise scan the log take O(log n) or O(types): the request folds (01 §1.6), the §6.1 step-4 known-type
 * lookup over a seed, and everything a live fork (01 §7) needs about its prefix — the last turn boundary at or before
 * the cut, the latest request records and the types it holds.
 */

import type { EventSource } from './event-log.ts'
import type { RequestContext, RequestHeader, SessionEvent } from './types.ts'

/** @internal The number of entries of the ascending `seqs` that are `<= b` (a binary search). */
export function countAtOrBefore(seqs: readonly number[], b: number): number {
  let lo = 0
  let hi = seqs.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (seqs[mid]! <= b) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** The largest entry of the ascending `seqs` that is `<= b`, or -1. */
function lastAtOrBefore(seqs: readonly number[], b: number): number {
  const n = countAtOrBefore(seqs, b)
  return n > 0 ? seqs[n - 1]! : -1
}

/** The entries of the ascending `seqs` that are `<= b`, as a fresh array. */
function upTo(seqs: readonly number[], b: number): number[] {
  return seqs.slice(0, countAtOrBefore(seqs, b))
}

/** @internal The landmark seqs of one log (its events at the index of their seq); see the module comment. */
export class LogIndex {
  /** Ascending seqs of `turn/start` and `turn/end` events. */
  private readonly turns: number[]
  /** Ascending seqs of `request/header` events. */
  private readonly headers: number[]
  /** Ascending seqs of `request/context` events. */
  private readonly contexts: number[]
  /** Ascending seqs of `session/end-seed` events (the seed contracts of 01 §5.3 look at these only). */
  private readonly endSeeds: number[]
  /** Each type among the required (not ignorable) events → the seq of its first such event. */
  private readonly firstRequired: Map<string, number>
  /** The type of the last required event added: a repeat needs no map lookup. */
  private lastRequiredType: string | undefined = undefined

  constructor(
    turns: number[] = [], headers: number[] = [], contexts: number[] = [], firstRequired = new Map<string, number>(),
    endSeeds: number[] = [],
  ) {
    this.turns = turns
    this.headers = headers
    this.contexts = contexts
    this.firstRequired = firstRequired
    this.endSeeds = endSeeds
  }

  /** Record `event`, the new last event of the log. */
  add(event: SessionEvent): void {
    this.note(event.type, event.seq, event.ignorable === true)
  }

  /** `add` for an event known by its type, seq and `ignorable` alone (a packed chunk run's first unbuilt member). */
  note(type: string, seq: number, ignorable: boolean): void {
    if (type === 'turn/start' || type === 'turn/end') this.turns.push(seq)
    else if (type === 'request/header') this.headers.push(seq)
    else if (type === 'request/context') this.contexts.push(seq)
    else if (type === 'session/end-seed') this.endSeeds.push(seq)
    if (type !== this.lastRequiredType && !ignorable) {
      this.lastRequiredType = type
      if (!this.firstRequired.has(type)) this.firstRequired.set(type, seq)
    }
  }

  /** The seqs of the `session/end-seed` events in `[from, end)`, ascending. */
  endSeedsIn(from: number, end: number): readonly number[] {
    return this.endSeeds.slice(countAtOrBefore(this.endSeeds, from - 1), countAtOrBefore(this.endSeeds, end - 1))
  }

  /** The seq of the last `turn/start` or `turn/end` at or before `b`, or -1. */
  lastTurnBoundary(b: number): number {
    return lastAtOrBefore(this.turns, b)
  }

  /** The `header` of the latest `request/header` in `log`, or `undefined`. */
  requestHeader(log: EventSource): RequestHeader | undefined {
    const seq = this.headers[this.headers.length - 1]
    return seq === undefined ? undefined : (log.at(seq) as SessionEvent<'request/header'>).data.header
  }

  /** The data of the latest `request/context` in `log`, or `undefined`. */
  requestContext(log: EventSource): RequestContext | undefined {
    const seq = this.contexts[this.contexts.length - 1]
    return seq === undefined ? undefined : (log.at(seq) as SessionEvent<'request/context'>).data
  }

  /** The seq of the first required event below `end` whose type `isKnown` rejects, or -1. */
  firstUnknownRequired(end: number, isKnown: (type: string) => boolean): number {
    let first = -1
    for (const [type, seq] of this.firstRequired) {
      if (seq < end && (first < 0 || seq < first) && !isKnown(type)) first = seq
    }
    return first
  }

  /** The index of the log's events `0..b` (a fork prefix): O(landmarks), never a walk of the events. */
  prefix(b: number): LogIndex {
    const firstRequired = new Map<string, number>()
    for (const [type, seq] of this.firstRequired) if (seq <= b) firstRequired.set(type, seq)
    return new LogIndex(upTo(this.turns, b), upTo(this.headers, b), upTo(this.contexts, b), firstRequired, upTo(this.endSeeds, b))
  }
}
