/**
 * Saved projection state of live sessions (03 §1.4, whose public names — `checkpoint(S)`, `projection/checkpointed`,
 * the persistence seam's `ProjectionCheckpoint` — call it a projection checkpoint; inside the code "checkpoint" is
 * left to the durable flush of `session-checkpoint-policy`): the synchronous capture, and the writer that triggers after
 * each `turn/end` and after every `everyEvents` state-changing events, flushes the log first (so a checkpoint is
 * never ahead of it) and keeps at most one write per session in flight.
 */
import { isJsonValue, messageOf, type Session, type SessionEvent } from '@logbook/session'
import type { Warn } from './cells.ts'
import type { ProjectionRegistry } from './registry.ts'
import type { ProjectionCheckpointData, ProjectionCheckpointRow } from './types.ts'

/**
 * Catch every cell of `session` up and take `{ sessionId, seq: S.seq − 1, anchor, rows }`: one row per unit that
 * is not apply-faulted and whose state is lossless JSON (others are left out, with a warning). Undefined when the
 * log is empty (there is no event to anchor on).
 */
export function captureSavedState(registry: ProjectionRegistry, session: Session, warn: Warn): ProjectionCheckpointData | undefined {
  const regs = registry.registrations()
  const cells = registry.cells(session, regs)
  const seq = session.seq - 1
  if (seq < 0) return undefined
  const event = session.events[seq]!
  const rows: Record<string, ProjectionCheckpointRow> = {}
  for (let i = 0; i < regs.length; i++) {
    const { unit } = regs[i]!
    const cell = cells[i]!
    if (cell.fault !== undefined) continue
    if (!isJsonValue(cell.state)) {
      warn(`projection ${unit.key} of session ${session.id}: state is not lossless JSON; left out of the checkpoint`)
      continue
    }
    rows[unit.key] = Object.freeze({ stateVersion: unit.stateVersion, state: cell.state as ProjectionCheckpointRow['state'] })
  }
  return Object.freeze({
    sessionId: session.id, seq, anchor: Object.freeze({ time: event.time, type: event.type }), rows: Object.freeze(rows),
  })
}

/** What the writer needs from its plugin. */
export interface WriterHost {
  capture(session: Session): ProjectionCheckpointData | undefined
  /** The persistence service if one is loaded now. */
  persistence(): { writeProjectionCheckpoint(id: string, cp: ProjectionCheckpointData): Promise<void> } | undefined
  isLive(session: Session): boolean
  flush(session: Session): Promise<unknown>
  written(cp: ProjectionCheckpointData): void
  warn: Warn
}

/** Per-session trigger state. */
interface Track {
  /** State-changing events since the last trigger. */
  count: number
  busy: boolean
  /** A trigger arrived while a write was in flight. */
  again: boolean
}

/** Triggers and serialises the checkpoint writes of live sessions (weakly held per session). */
export class SavedStateWriter {
  private readonly tracks = new WeakMap<Session, Track>()
  private readonly running = new Set<Promise<void>>()
  private closed = false

  constructor(private readonly host: WriterHost, private readonly everyEvents: number) {}

  /** Account for one driven event; `changed` says whether it changed some unit's state. */
  observe(session: Session, event: SessionEvent, changed: boolean): void {
    let track = this.tracks.get(session)
    if (track === undefined) this.tracks.set(session, track = { count: 0, busy: false, again: false })
    if (changed) track.count += 1
    if (event.type !== 'turn/end' && track.count < this.everyEvents) return
    track.count = 0
    const t = track
    // Asynchronous on purpose: the other `session/event` listeners (the persistence writer among them) see the event
    // before the capture and the flush.
    queueMicrotask(() => this.request(session, t))
  }

  private request(session: Session, track: Track): void {
    if (this.closed) return
    if (track.busy) {
      track.again = true
      return
    }
    track.busy = true
    const run = this.loop(session, track)
    this.running.add(run)
    void run.finally(() => this.running.delete(run))
  }

  private async loop(session: Session, track: Track): Promise<void> {
    try {
      do {
        track.again = false
        if (this.closed || !this.host.isLive(session)) return
        const persistence = this.host.persistence()
        if (persistence === undefined) return
        const cp = this.host.capture(session)
        if (cp === undefined) return
        try {
          await this.host.flush(session)
          await persistence.writeProjectionCheckpoint(session.id, cp)
          this.host.written(cp)
        } catch (error) {
          if (this.host.isLive(session)) {
            this.host.warn(`projection checkpoint of session ${session.id} at seq ${cp.seq} failed: ${messageOf(error)}`)
          }
        }
      } while (track.again)
    } finally {
      track.busy = false
    }
  }

  /** Stop triggering and wait for the writes in flight. */
  async close(): Promise<void> {
    this.closed = true
    await Promise.allSettled([...this.running])
  }
}
