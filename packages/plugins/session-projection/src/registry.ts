/**
 * The registry's state and algorithms (03 §1.2, §1.3), kept on a plain object: Cordis hands callers a tracing proxy
 * of the service, so identity (registrations, cells, listeners) must not live on the service instance.
 */
import { isThenable, messageOf, type Session, type SessionEvent } from '@logbook/session'
import { type Cell, catchUp, catchUpAll, type Registration, type Warn } from './cells.ts'
import { type Unit, viewOf } from './definition.ts'
import { duplicateKey } from './errors.ts'
import type { ProjectionChange, ProjectionChangeListener, ProjectionFault, ProjectionSnapshot } from './types.ts'

/** One notice waiting for the listeners, with the state it reports. */
interface Pending {
  readonly cell: Cell
  readonly state: unknown
  readonly change: ProjectionChange
}

/** The units, their cells and the change listeners; every list is replaced, never mutated, so loops see a snapshot. */
export class ProjectionRegistry {
  private regs: readonly Registration[] = []
  private listeners: readonly ProjectionChangeListener[] = []

  constructor(private readonly warn: Warn) {}

  /** The registrations in registration order. */
  registrations(): readonly Registration[] {
    return this.regs
  }

  /** The registration of `key`, if any. */
  find(key: string): Registration | undefined {
    return this.regs.find(reg => reg.unit.key === key)
  }

  /**
   * Add a unit; its disposer removes exactly this registration (a stale disposer never removes a newer one).
   * @throws ProjectionError `DUPLICATE_KEY` whenever the key is taken.
   */
  add(unit: Unit): () => void {
    if (this.find(unit.key) !== undefined) throw duplicateKey(unit.key)
    const reg: Registration = { unit, cells: new WeakMap() }
    this.regs = [...this.regs, reg]
    return () => {
      this.regs = this.regs.filter(r => r !== reg)
    }
  }

  /** Add a change listener; its disposer removes it. */
  listen(listener: ProjectionChangeListener): () => void {
    const entry = (change: ProjectionChange): void => listener(change)
    this.listeners = [...this.listeners, entry]
    return () => {
      this.listeners = this.listeners.filter(l => l !== entry)
    }
  }

  /** The cell of `reg` for `session`, caught up. */
  cell(reg: Registration, session: Session): Cell {
    return catchUp(reg, session, this.warn)
  }

  /** The cells of every registration for `session`, caught up in one pass, in registration order. */
  cells(session: Session, regs: readonly Registration[] = this.regs, last?: SessionEvent): Cell[] {
    return catchUpAll(regs, session, this.warn, last)
  }

  /** The caught-up state of `key`, or undefined when unregistered or apply-faulted. */
  stateOf(session: Session, key: string): unknown {
    const reg = this.find(key)
    if (reg === undefined) return undefined
    const cell = this.cell(reg, session)
    return cell.fault === undefined ? cell.state : undefined
  }

  /** Catch every cell of `session` up, then read the views (each call runs `view`). */
  snapshot(session: Session): ProjectionSnapshot {
    const regs = this.regs
    const cells = this.cells(session, regs)
    const values: Record<string, unknown> = {}
    const faults: Record<string, ProjectionFault> = {}
    for (let i = 0; i < regs.length; i++) {
      const { unit } = regs[i]!
      const cell = cells[i]!
      if (cell.fault !== undefined) {
        faults[unit.key] = cell.fault
        continue
      }
      if (!unit.viewable) continue
      try {
        values[unit.key] = viewOf(unit, cell.state)
      } catch (error) {
        faults[unit.key] = Object.freeze({ seq: cell.watermark, phase: 'view', message: messageOf(error) })
      }
    }
    return Object.freeze({ sessionId: session.id, asOfSeq: session.seq - 1, values: Object.freeze(values), faults: Object.freeze(faults) })
  }

  /** Drop the cell(s) of `session` and refold them from the in-memory log. */
  rebuild(session: Session, key?: string): void {
    const regs = key === undefined ? this.regs : this.regs.filter(reg => reg.unit.key === key)
    for (const reg of regs) reg.cells.delete(session)
    this.cells(session, regs)
  }

  /**
   * The eager drive of one `session/event` (03 §1.3 rule 4): catch every unit's cell up in registration order, then
   * notify each viewable unit whose state differs from the one last reported (units, then listeners, in order).
   * Returns whether `event` changed some unit's state.
   */
  drive(session: Session, event: SessionEvent): boolean {
    const regs = this.regs
    const cells = this.cells(session, regs, event)
    const changed = cells.some(cell => cell.changedAt === event.seq)
    const listeners = this.listeners
    if (listeners.length === 0) return changed
    const pending: Pending[] = []
    for (let i = 0; i < regs.length; i++) {
      const { unit } = regs[i]!
      const cell = cells[i]!
      if (!unit.viewable || cell.fault !== undefined || cell.state === cell.reported) continue
      const state = cell.state
      let view: unknown
      try {
        view = viewOf(unit, state)
      } catch {
        continue // a view fault: not notified; `snapshot` reports it while `view` keeps throwing
      }
      pending.push({ cell, state, change: Object.freeze({ session, key: unit.key, view, seq: event.seq }) })
    }
    for (const { cell, state, change } of pending) {
      cell.reported = state
      for (const listener of listeners) {
        try {
          const result: unknown = listener(change)
          if (isThenable(result)) {
            Promise.resolve(result).then(undefined, (error: unknown) => {
              this.warn(`projection ${change.key}: onChanged listener rejected: ${messageOf(error)}`)
            })
          }
        } catch (error) {
          this.warn(`projection ${change.key}: onChanged listener threw: ${messageOf(error)}`)
        }
      }
    }
    return changed
  }
}
