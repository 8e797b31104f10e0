/**
 * Indexing one session is a fold over its log (spec 04 §3): from the state after the events indexed so far, a range
 * of further events yields the text rows to add, the seqs a replace shadowed (their rows leave the surface) and the
 * next state. The state is small and stored with the index, so a later step — in this process or another — resumes
 * exactly where the last one stopped, reading only the new tail (plus the chunks of a step still open).
 */
import { isSurfaceEvent, type SessionEvent } from '@logbook/session'
import { titleProjection, type TitleState } from '@logbook/session-projection'
import { ChunkTracker } from './chunks.ts'
import { piecesOf } from './extract.ts'
import type { SearchField } from './types.ts'

/** Random access to a session's events by seq (a live `session.events` view, or a stored tail). */
export interface LogView {
  /** The event at `seq`, or `undefined` outside the view. */
  at(seq: number): SessionEvent | undefined
  /** One past the last seq of the view. */
  readonly end: number
}

/** Where a session's indexing stands (stored per session in the index). */
export interface FoldState {
  /** Events indexed: every event below this seq has its rows. */
  readonly count: number
  /** Where the next step re-reads from: the oldest chunk still waiting for its step to end, else `count`. */
  readonly resume: number
  /** The open turn after the last indexed event, or `null`. */
  readonly turn: number | null
  /** The surface nodes after the last indexed event, in surface order. */
  readonly nodes: readonly number[]
  /** The `title` unit's state (03 §1.5). */
  readonly title: TitleState
  /** Type and time of the event at `count − 1`, to tell a grown log from a different one. */
  readonly last: { readonly type: string; readonly time: number } | null
}

/** One text of one event, as stored. */
export interface TextRow {
  readonly seq: number
  readonly turn: number | null
  readonly type: string
  readonly field: SearchField
  readonly onSurface: boolean
  readonly text: string
}

/** What folding a range produced. */
export interface FoldResult {
  readonly state: FoldState
  readonly rows: readonly TextRow[]
  /** Seqs a replace took off the surface in this range (rows of earlier steps included). */
  readonly shadowed: readonly number[]
}

/** The state of a session nothing was indexed of. */
export const EMPTY_FOLD: FoldState = Object.freeze({
  count: 0, resume: 0, turn: null, nodes: Object.freeze([]), title: titleProjection.init(), last: null,
})

/** The title a state shows, or `null`. */
export function titleOf(state: FoldState): string | null {
  return titleProjection.view!(state.title)
}

function turnOf(event: SessionEvent, open: number | null): number | null {
  const turn = (event.data as { turn?: unknown }).turn
  return typeof turn === 'number' ? turn : open
}

/** Apply a surface event's op to `nodes` (positional, 01 §4.4); returns the shadowed seqs. */
function applySurfaceOp(nodes: number[], event: SessionEvent): readonly number[] {
  const op = (event as { surfaceOp?: unknown }).surfaceOp
  if (op === 'append') {
    nodes.push(event.seq)
    return []
  }
  const { start, end } = op as { start: number; end: number }
  const from = nodes.indexOf(start)
  const to = nodes.indexOf(end)
  if (from === -1 || to === -1 || from > to) {
    throw new Error(`surface replace at seq ${event.seq} names seqs ${start}..${end} that are not a range of the surface`)
  }
  return nodes.splice(from, to - from + 1, event.seq)
}

/**
 * Fold `view` from `base` up to `end` (exclusive). Events between `base.resume` and `base.count` were indexed
 * already: they only rebuild the pending chunks. `view` must hold every seq from `base.resume` to `end − 1`.
 * @throws Error when the view lacks an event, or a replace names nodes the surface does not hold in that order.
 */
export function foldRange(view: LogView, base: FoldState, end: number): FoldResult {
  const chunks = new ChunkTracker()
  const rows: TextRow[] = []
  const shadowed: number[] = []
  const nodes = base.nodes.slice()
  let { turn, title, last } = base
  for (let seq = base.resume; seq < end; seq++) {
    const event = view.at(seq)
    if (event === undefined || event.seq !== seq) throw new Error(`event at seq ${seq} is missing from the log being indexed`)
    const fresh = seq >= base.count
    for (const orphan of chunks.feed(event, fresh)) {
      rows.push({ seq: orphan.seq, turn: orphan.turn, type: 'assistant/chunk', field: orphan.field, onSurface: false, text: orphan.text })
    }
    if (!fresh) continue
    const rowTurn = turnOf(event, turn)
    const surface = isSurfaceEvent(event)
    for (const piece of piecesOf(event)) {
      rows.push({ seq, turn: rowTurn, type: event.type, field: piece.field, onSurface: surface, text: piece.text })
    }
    if (surface) shadowed.push(...applySurfaceOp(nodes, event))
    if (event.type === 'turn/start') turn = event.data.turn
    else if (event.type === 'turn/end') turn = null
    title = titleProjection.apply(title, event)
    last = { type: event.type, time: event.time }
  }
  const count = Math.max(base.count, end)
  const state: FoldState = { count, resume: chunks.oldest ?? count, turn, nodes, title, last }
  return { state, rows, shadowed }
}

/** A view over `events`, the stored events from seq `from` on. */
export function viewOf(events: readonly SessionEvent[], from: number): LogView {
  return { at: seq => events[seq - from], end: from + events.length }
}
