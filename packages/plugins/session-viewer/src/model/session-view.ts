/**
 * One stored session as the viewer holds it: the events, their split into turn segments, the surface and the totals,
 * kept current by `append` as a tail of newly stored events arrives. Building it never copies or mutates the events.
 */

import { SUMMARY_NODE_ID_PREFIX, isCompactionCheckpoint } from '@logbook/compaction'
import { foldSurface, isSurfaceEvent, type SessionEvent, type SessionHeader, type TokenUsage } from '@logbook/session'
import { titleProjection, type TitleState } from '@logbook/session-projection'
import { SessionViewerError } from '../errors.ts'

/** A run of events from one `turn/start` up to the next (turn 0: the events before the first turn). */
export interface Segment {
  readonly turn: number
  /** Seq of the first event. */
  readonly start: number
}

/**
 * Token totals of the model's replies: sums over `assistant/message.usage`, as the built-in `stats` unit counts them
 * (a compaction's summary request shows its own usage on the compaction).
 */
export interface UsageTotals {
  inputTokens: number
  outputTokens: number
  cacheReadTokens: number
  cacheWriteTokens: number
  reasoningTokens: number
}

/** What one `append` changed. */
export interface ViewChange {
  /** Seq of the first appended event. */
  readonly fromSeq: number
  /** Indexes of the segments that gained events, ascending. */
  readonly segments: readonly number[]
  /** A replace changed the surface (nodes moved): pages must be rendered again. */
  readonly surfaceReplaced: boolean
  /** Nodes were appended at the surface's tail. */
  readonly surfaceAppended: boolean
}

/** The bracket events of one compaction, by seq. */
export interface CompactionSeqs {
  startSeq?: number
  summarySeq?: number
  checkpointSeq?: number
  endSeq?: number
}

/** A zeroed `UsageTotals`. */
export function emptyUsage(): UsageTotals {
  return { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 }
}

/** Adds `usage` into `totals`. */
export function addUsage(totals: UsageTotals, usage: TokenUsage | undefined): void {
  if (usage === undefined) return
  totals.inputTokens += usage.inputTokens
  totals.outputTokens += usage.outputTokens
  totals.cacheReadTokens += usage.cacheReadTokens ?? 0
  totals.cacheWriteTokens += usage.cacheWriteTokens ?? 0
  totals.reasoningTokens += usage.reasoningTokens ?? 0
}


/** The id of the compaction an event of its bracket belongs to. */
function compactionIdOf(event: SessionEvent): string | undefined {
  switch (event.type) {
    case 'compaction/start':
    case 'compaction/summary':
    case 'compaction/end':
      return event.data.compactionId
    default:
      return isCompactionCheckpoint(event) && event.type === 'user/message' ? event.data.id.slice(SUMMARY_NODE_ID_PREFIX.length) : undefined
  }
}

/** A stored session, indexed for rendering. */
export class SessionView {
  readonly events: SessionEvent[] = []
  readonly segments: Segment[] = []
  readonly totals = emptyUsage()
  readonly compactions = new Map<string, CompactionSeqs>()
  /** Call id → tool name, from the replies that requested the calls and from `tool/call`. */
  readonly callNames = new Map<string, string>()
  /** The surface: node seqs in order. */
  nodes: number[] = []
  /** Shadowed seq → the seq of the event that replaced it. */
  shadowedBy = new Map<number, number>()
  /** Seq of the newest event that replaced surface nodes (−1: none). */
  lastReplaceSeq = -1
  /**
   * Whether a process holds the session for writing, as last learned: `live` (its lock is held, or new events
   * arrived), `stopped` (an open turn and nobody holds it: a resume will close the turn), `unknown` (not asked).
   */
  writer: 'live' | 'stopped' | 'unknown' = 'unknown'
  /** Why the surface could not be replayed, when it could not (the log view still works). */
  surfaceProblem: string | undefined
  private title: TitleState = titleProjection.init()

  constructor(readonly id: string, readonly header: SessionHeader, events: readonly SessionEvent[]) {
    this.index(events)
    // Without a replace the surface is every append-origin node in log order, as `index` collected it.
    if (this.lastReplaceSeq >= 0) this.refold()
  }

  /** The next seq the store will hold (the number of events). */
  get nextSeq(): number {
    return this.events.length
  }

  /** The session's title (03 §1.5's `title` unit), or `null`. */
  get titleText(): string | null {
    return this.title.explicit ?? this.title.fallback ?? null
  }

  /** Seqs below this one were inherited from the parent (0 when the session is not a fork). */
  get inheritedCount(): number {
    return this.header.isSeeded === true ? this.header.seedLength ?? 0 : 0
  }

  /** Index of the segment holding `seq` (binary search). */
  segmentOf(seq: number): number {
    let low = 0
    let high = this.segments.length - 1
    while (low < high) {
      const mid = (low + high + 1) >> 1
      if (this.segments[mid]!.start <= seq) low = mid
      else high = mid - 1
    }
    return low
  }

  /** The seqs `[start, end)` of segment `index`. */
  rangeOf(index: number): { start: number; end: number } {
    const start = this.segments[index]!.start
    const end = this.segments[index + 1]?.start ?? this.events.length
    return { start, end }
  }

  /** The open turn shows as running only while its writer is known to be live. */
  get running(): boolean {
    return this.openTurn !== null && this.writer === 'live'
  }

  /** The last turn when it has no `turn/end` yet: it is being written, or its writer stopped. */
  get openTurn(): number | null {
    for (let i = this.events.length - 1; i >= 0; i--) {
      const event = this.events[i]!
      if (event.type === 'turn/end') return null
      if (event.type === 'turn/start') return event.data.turn
    }
    return null
  }

  /** Add the events stored after `nextSeq`; events at seqs already held are ignored. */
  append(events: readonly SessionEvent[]): ViewChange | null {
    const fresh = events.filter(event => event.seq >= this.events.length)
    if (fresh.length === 0) return null
    const fromSeq = this.events.length
    const before = this.segments.length
    const firstSegment = fresh[0]!.type === 'turn/start' ? before : before - 1
    let replaced = false
    let appended = false
    for (const event of fresh) {
      if (isSurfaceEvent(event)) {
        if (event.surfaceOp === 'append') appended = true
        else replaced = true
      }
    }
    this.index(fresh)
    if (replaced) this.refold()
    const segments: number[] = []
    for (let i = Math.max(0, firstSegment); i < this.segments.length; i++) segments.push(i)
    return { fromSeq, segments, surfaceReplaced: replaced, surfaceAppended: appended }
  }

  private index(events: readonly SessionEvent[]): void {
    for (const event of events) {
      if (event.seq !== this.events.length) throw new SessionViewerError('INVALID_LOG', `session "${this.id}": event seq ${event.seq} does not follow ${this.events.length - 1}`)
      if (event.type === 'turn/start') this.segments.push({ turn: event.data.turn, start: event.seq })
      else if (this.segments.length === 0) this.segments.push({ turn: 0, start: event.seq })
      this.events.push(event)
      if (isSurfaceEvent(event)) {
        if (event.surfaceOp === 'append') this.nodes.push(event.seq)
        else this.lastReplaceSeq = event.seq
      }
      if (event.type === 'assistant/message') addUsage(this.totals, event.data.usage)
      this.title = titleProjection.apply(this.title, event)
      if (event.type === 'tool/call') this.callNames.set(event.data.callId, event.data.name)
      else if (event.type === 'assistant/message') {
        for (const block of event.data.message.content) if (block.type === 'tool-call') this.callNames.set(block.id, block.name)
      }
      const compactionId = compactionIdOf(event)
      if (compactionId !== undefined) this.recordCompaction(compactionId, event)
    }
  }

  private recordCompaction(id: string, event: SessionEvent): void {
    const seqs = this.compactions.get(id) ?? {}
    switch (event.type) {
      case 'compaction/start': seqs.startSeq = event.seq; break
      case 'compaction/summary': seqs.summarySeq = event.seq; break
      case 'compaction/end': seqs.endSeq = event.seq; break
      default: seqs.checkpointSeq = event.seq
    }
    this.compactions.set(id, seqs)
  }

  /** Replays the whole surface with core's `foldSurface`: once a replace was logged, at construction and after each. */
  private refold(): void {
    try {
      const folded = foldSurface(this.events)
      this.nodes = folded.nodes
      this.shadowedBy = new Map()
      for (const replacement of folded.replacements) {
        for (const seq of replacement.shadowedSeqs) this.shadowedBy.set(seq, replacement.seq)
      }
      this.surfaceProblem = undefined
    } catch (error) {
      this.nodes = []
      this.shadowedBy = new Map()
      this.surfaceProblem = error instanceof Error ? error.message : String(error)
    }
  }
}
