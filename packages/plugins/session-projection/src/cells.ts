/**
 * Cells (03 §1.3 rules 2, 3, 8): one per (unit, session), weakly held by the unit, so a dropped session or a
 * disposed unit takes its cells with it. Catch-up applies every event above the watermark exactly once, in order.
 */
import { messageOf, type Session, type SessionEvent } from '@logbook/session'
import { applyEvent, initState, type Unit } from './definition.ts'
import type { ProjectionFault } from './types.ts'

/** The fold of one unit over one session. */
export interface Cell {
  state: unknown
  /** Seq of the last applied event; −1 after `init`. */
  watermark: number
  /** The state last reported to `onChanged` listeners; starts as the `init()` state. */
  reported: unknown
  /** Seq of the last event that changed `state` (−1: none); marks checkpoint dirtiness. */
  changedAt: number
  /** Set once `apply` (or `init`) failed: the cell then skips every later event. */
  fault: ProjectionFault | undefined
}

/** A registered unit with its cells. */
export interface Registration {
  readonly unit: Unit
  readonly cells: WeakMap<Session, Cell>
}

/** Where a failing cell reports its one warning. */
export type Warn = (text: string) => void

function faultCell(cell: Cell, unit: Unit, session: Session, seq: number, error: unknown, warn: Warn): void {
  const message = messageOf(error)
  cell.fault = Object.freeze({ seq, phase: 'apply', message })
  cell.state = undefined
  warn(`projection ${unit.key} failed at seq ${seq} of session ${session.id}: ${message}`)
}

function newCell(reg: Registration, session: Session, warn: Warn): Cell {
  const cell: Cell = { state: undefined, watermark: -1, reported: undefined, changedAt: -1, fault: undefined }
  try {
    cell.state = cell.reported = initState(reg.unit)
  } catch (error) {
    // An `init` failure is reported like an apply failure before the first event (seq −1).
    faultCell(cell, reg.unit, session, -1, error, warn)
  }
  reg.cells.set(session, cell)
  return cell
}

/** Apply one event to a live (not faulted) cell; a throw faults it at that seq. */
function step(unit: Unit, cell: Cell, session: Session, event: SessionEvent, warn: Warn): void {
  const seq = event.seq
  let next: unknown
  try {
    next = applyEvent(unit, cell.state, event)
  } catch (error) {
    cell.watermark = seq
    faultCell(cell, unit, session, seq, error, warn)
    return
  }
  if (next !== cell.state) {
    cell.state = next
    cell.changedAt = seq
  }
  cell.watermark = seq
}

/**
 * A catch-up of at least `1 / BULK_READ_SHARE` of the log reads it as a plain array: each read through the `events`
 * view (a Proxy) costs about as much as copying a hundred references, and a rebuild reads every event once.
 */
const BULK_READ_SHARE = 64

/** The log for reading seqs `from` to `end − 1`: a plain copy of its first `end` events for a long catch-up. */
function readLog(session: Session, from: number, end: number): readonly SessionEvent[] {
  // The view's `slice` copies from the backing log in one native step: the same frozen events, in order.
  return (end - from) * BULK_READ_SHARE >= end ? session.events.slice(0, end) : session.events
}

/**
 * The cells of `regs` for `session`, each created at `init()` when missing and caught up to `session.seq − 1` in one
 * pass over the log (each event is read once and reaches each cell at most once, units in registration order). A
 * throwing `apply` faults its cell at that seq, keeps no partial state and logs one warning. `last`, when given, is
 * the session's committed event at its seq.
 */
export function catchUpAll(regs: readonly Registration[], session: Session, warn: Warn, last?: SessionEvent): Cell[] {
  const cells = regs.map(reg => reg.cells.get(session) ?? newCell(reg, session, warn))
  const end = session.seq
  let from = end
  for (const cell of cells) if (cell.fault === undefined && cell.watermark + 1 < from) from = cell.watermark + 1
  if (from >= end) return cells
  // The driven event is passed along: the common one-event catch-up then never reads the log.
  let events: readonly SessionEvent[] | undefined
  const wanted = wantedTypes(regs)
  for (let seq = from; seq < end; seq++) {
    const event = last !== undefined && last.seq === seq ? last : (events ??= readLog(session, from, end))[seq]!
    if (wanted !== undefined && !wanted.has(event.type)) continue
    for (let i = 0; i < cells.length; i++) {
      const cell = cells[i]!
      if (cell.fault === undefined && cell.watermark < seq) step(regs[i]!.unit, cell, session, event, warn)
    }
  }
  // An event no unit folds was passed over above: it still counts as applied to every live cell.
  for (const cell of cells) if (cell.fault === undefined && cell.watermark < end - 1) cell.watermark = end - 1
  return cells
}

/** The union of the units' event types per registration list (lists are replaced, never changed, on (un)register). */
const unionOf = new WeakMap<readonly Registration[], ReadonlySet<string> | null>()

/** Every event type some unit of `regs` folds; undefined when one of them folds every event. */
function wantedTypes(regs: readonly Registration[]): ReadonlySet<string> | undefined {
  if (regs.length === 1) return regs[0]!.unit.types
  let union = unionOf.get(regs)
  if (union === undefined) {
    union = regs.every(reg => reg.unit.types !== undefined) ? new Set(regs.flatMap(reg => [...reg.unit.types!])) : null
    unionOf.set(regs, union)
  }
  return union ?? undefined
}

/** The cell of one registration, caught up (see `catchUpAll`). */
export function catchUp(reg: Registration, session: Session, warn: Warn): Cell {
  return catchUpAll([reg], session, warn)[0]!
}
