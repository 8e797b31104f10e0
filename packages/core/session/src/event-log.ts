/**
 * The backing store of a session log and of a restored log (01 §3.6, §10): an append-only array whose slots hold
 * events or, for members of a packed chunk run, the `PackedRun` itself. Reading a slot builds the member (frozen,
 * cached by the run) and keeps it in the slot, so a packed run costs one slot write per member until it is read.
 */
import { PackedRun } from './packed-run.ts'
import type { SessionEvent } from './types.ts'

/** @internal A slot: an event, or the packed run its member comes from. */
export type LogSlot = SessionEvent | PackedRun

/** What the surface, the derived messages and the log index read: any log by position (an array fits). */
export interface EventSource {
  /** The event at index `i` (0 ≤ i), or `undefined` past the end. */
  at(i: number): SessionEvent | undefined
  readonly length: number
}

/**
 * An append-only log of events whose packed chunk runs stay packed until read. Index `i` holds the event with seq
 * `base + i`; `at(i)` returns the same frozen object on every read.
 */
export class EventLog implements EventSource {
  /** @internal The slots; readers go through `at`. */
  readonly slots: LogSlot[]
  /** The seq of the event at index 0. */
  readonly base: number
  /**
   * @internal True when whoever filled this log vouches that every event in it passed the 01 §2.2 envelope checks,
   * the type-name grammar, the surface `ignorable` rule and seq contiguity from `base` (the persistence read walk
   * does, record by record): a restore from it then runs only the lossless, payload and surface steps of §5.2.
   */
  readonly envelopesChecked: boolean
  private adopted = false
  /** False while no slot can hold a run (a log only ever `push`ed to): `slice` is then one native copy. */
  private mayHoldRuns: boolean

  constructor(slots: LogSlot[] = [], base = 0, envelopesChecked = false) {
    this.slots = slots
    this.base = base
    this.envelopesChecked = envelopesChecked
    this.mayHoldRuns = slots.length > 0
  }

  /** The number of events. */
  get length(): number {
    return this.slots.length
  }

  /** The event at index `i` (0 ≤ i), built from its run on first read; `undefined` past the end. */
  at(i: number): SessionEvent | undefined {
    const slot = this.slots[i]
    return slot instanceof PackedRun ? this.expand(slot, i) : slot
  }

  private expand(run: PackedRun, i: number): SessionEvent {
    const event = run.member(this.base + i - run.seq0)
    this.slots[i] = event
    return event
  }

  /** The run whose member sits, still unread, at index `i`, or `undefined`. */
  runAt(i: number): PackedRun | undefined {
    const slot = this.slots[i]
    return slot instanceof PackedRun ? slot : undefined
  }

  /** True the first time only: the caller may take this log over as a session's own, growing log. */
  adopt(): boolean {
    if (this.adopted) return false
    this.adopted = true
    return true
  }

  /** Append one event. */
  push(event: SessionEvent): void {
    this.slots.push(event)
  }

  /** Append members `from … from + count − 1` of `run` (default: all of them), packed. */
  pushRun(run: PackedRun, from = 0, count = run.length - from): void {
    // One native fill rather than a push per member: a cold restore runs this loop before it is optimised.
    const slots = this.slots
    const start = slots.length
    slots.length = start + count
    slots.fill(run, start)
    this.mayHoldRuns = true
  }

  /** Indexes `from … to − 1` as a plain array of events (each built once): one native copy, then any run filled in. */
  slice(from: number, to: number): SessionEvent[] {
    const out = this.slots.slice(from, to)
    if (!this.mayHoldRuns) return out as SessionEvent[]
    for (let i = 0; i < out.length; i++) if (out[i] instanceof PackedRun) out[i] = this.at(from + i)!
    return out as SessionEvent[]
  }

  /** A new log holding indexes `0 … n − 1`, sharing events and runs (no member is built). */
  prefix(n: number): EventLog {
    const log = new EventLog(this.slots.slice(0, n), this.base)
    log.mayHoldRuns = this.mayHoldRuns && n > 0
    return log
  }
}
