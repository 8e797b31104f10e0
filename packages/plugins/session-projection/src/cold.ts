/**
 * `coldSnapshot` (03 §1.2, §1.4 "Reading"): the snapshot of a stored session from its projection checkpoint plus
 * the stored events after it, through read paths only (it never writes and never takes write ownership).
 */
import { messageOf, type SessionEvent } from '@logbook/session'
import { applyEvent, initState, schemaAccepts, type Unit, viewOf } from './definition.ts'
import { freezeState } from './freeze.ts'
import type { ProjectionFault, ProjectionSnapshot } from './types.ts'

/** The read paths of the persistence seam that a cold snapshot uses. */
export interface ColdReader {
  readProjectionCheckpoint(id: string, opts?: { signal?: AbortSignal }): Promise<unknown>
  readFrom(id: string, fromSeq: number, opts?: { signal?: AbortSignal }): Promise<readonly SessionEvent[]>
}

interface StoredCheckpoint {
  readonly seq: number
  readonly anchor: { readonly time: unknown; readonly type: unknown }
  readonly rows: { readonly [key: string]: unknown }
}

function asCheckpoint(value: unknown, id: string): StoredCheckpoint | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  const cp = value as Record<string, unknown>
  if (cp.sessionId !== id || !Number.isSafeInteger(cp.seq) || (cp.seq as number) < 0) return undefined
  if (typeof cp.anchor !== 'object' || cp.anchor === null || typeof cp.rows !== 'object' || cp.rows === null) return undefined
  return cp as unknown as StoredCheckpoint
}

/** True iff the first stored event from `cp.seq` is the event the checkpoint was taken at. */
function isAnchored(cp: StoredCheckpoint, first: SessionEvent | undefined): boolean {
  return first !== undefined && first.seq === cp.seq && first.time === cp.anchor.time && first.type === cp.anchor.type
}

/** The row's state if it is usable for `unit`: same `stateVersion` and accepted by `stateSchema`. */
function usableRow(unit: Unit, row: unknown): { state: unknown } | undefined {
  if (typeof row !== 'object' || row === null) return undefined
  const { stateVersion, state } = row as { stateVersion?: unknown; state?: unknown }
  if (stateVersion !== unit.stateVersion || !schemaAccepts(unit, state)) return undefined
  return { state }
}

/** Fold `events` (from index `from`) into `state`; a throwing `apply` ends the fold with a fault. */
function fold(unit: Unit, state: unknown, events: readonly SessionEvent[], from: number): { state: unknown; fault?: ProjectionFault } {
  for (let i = from; i < events.length; i++) {
    const event = events[i]!
    try {
      state = applyEvent(unit, state, event)
    } catch (error) {
      return { state: undefined, fault: Object.freeze({ seq: event.seq, phase: 'apply', message: messageOf(error) }) }
    }
  }
  return { state }
}

/**
 * Read the checkpoint, then the stored events from its `seq`; anchored usable rows fold only the later events, every
 * other unit (all, when not anchored) folds from `init` over a full read from 0. `asOfSeq` is the last stored seq.
 * @throws the persistence error (`SESSION_NOT_FOUND` for an unknown id), or `signal.reason` once aborted.
 */
export async function coldSnapshot(reader: ColdReader, units: () => readonly Unit[], id: string, signal?: AbortSignal): Promise<ProjectionSnapshot> {
  const opts = signal === undefined ? {} : { signal }
  signal?.throwIfAborted()
  const cp = asCheckpoint(await reader.readProjectionCheckpoint(id, opts), id)
  let tail: readonly SessionEvent[] = []
  if (cp !== undefined) tail = await reader.readFrom(id, cp.seq, opts)
  const anchored = cp !== undefined && isAnchored(cp, tail[0])
  const regs = units()
  let rows = regs.map(unit => anchored ? usableRow(unit, cp.rows[unit.key]) : undefined)
  let events = tail
  let offset = anchored ? cp.seq : 0
  if (!anchored || rows.some(row => row === undefined)) {
    events = await reader.readFrom(id, 0, opts)
    offset = 0
    // The full read is what gets folded: the rows stay usable only if it still holds the anchor event.
    if (anchored && !isAnchored(cp, events[cp.seq])) rows = rows.map(() => undefined)
  }
  signal?.throwIfAborted()
  const values: Record<string, unknown> = {}
  const faults: Record<string, ProjectionFault> = {}
  for (let i = 0; i < regs.length; i++) {
    const unit = regs[i]!
    const row = rows[i]
    let result: { state: unknown; fault?: ProjectionFault }
    if (row !== undefined) {
      // Anchored: the event at `cp.seq` is already in the row; fold the ones after it.
      result = fold(unit, freezeState(row.state), events, cp!.seq - offset + 1)
    } else {
      try {
        result = fold(unit, initState(unit), events, 0)
      } catch (error) {
        result = { state: undefined, fault: Object.freeze({ seq: -1, phase: 'apply', message: messageOf(error) }) }
      }
    }
    if (result.fault !== undefined) {
      faults[unit.key] = result.fault
      continue
    }
    if (!unit.viewable) continue
    try {
      values[unit.key] = viewOf(unit, result.state)
    } catch (error) {
      faults[unit.key] = Object.freeze({ seq: events.at(-1)?.seq ?? -1, phase: 'view', message: messageOf(error) })
    }
  }
  const asOfSeq = events.at(-1)?.seq ?? -1
  return Object.freeze({ sessionId: id, asOfSeq, values: Object.freeze(values), faults: Object.freeze(faults) })
}
